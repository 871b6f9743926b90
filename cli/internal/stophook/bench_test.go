package stophook

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
)

// BenchmarkFastPaths measures the answers that never run the gauntlet: each
// must stay a few milliseconds (the hook runs on every stop of the agent).
// ExecuteRun is never called.
func BenchmarkFastPaths(b *testing.B) {
	root := project(b, "")
	locked := project(b, "")
	mustWrite(b, lock.Path(filepath.Join(locked, "gauntlet_logs")), "")
	recent := project(b, "")
	writeState(b, filepath.Join(recent, "gauntlet_logs"), now.Add(-time.Minute))
	disabled := project(b, "stop_hook:\n  enabled: false\n")
	outside := b.TempDir()
	for _, bc := range []struct {
		name  string
		input string
		want  runner.GauntletStatus
	}{
		{"invalid_input", "not json", runner.StatusInvalidInput},
		{"stop_hook_active", input(root, true), runner.StatusStopHookActive},
		{"no_config", input(outside, false), runner.StatusNoConfig},
		{"stop_hook_disabled", input(disabled, false), runner.StatusStopHookDisabled},
		{"lock_exists", input(locked, false), runner.StatusLockExists},
		{"interval_not_elapsed", input(recent, false), runner.StatusIntervalNotElapsed},
	} {
		b.Run(bc.name, func(b *testing.B) {
			getenv := env(b, nil)
			exec := func(context.Context, runner.Options) runner.RunResult {
				b.Fatal("ExecuteRun called on a fast path")
				return runner.RunResult{}
			}
			for b.Loop() {
				out := run(context.Background(), Options{
					Stdin: strings.NewReader(bc.input), Stdout: io.Discard, Stderr: io.Discard,
					Getenv: getenv, Now: func() time.Time { return now },
				}, deps{execute: exec})
				if out.Status != bc.want {
					b.Fatalf("status %s, want %s", out.Status, bc.want)
				}
			}
		})
	}
}
