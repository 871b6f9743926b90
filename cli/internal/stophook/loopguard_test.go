package stophook

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// sessionInput is a Claude Code stop of session in dir, with the loop
// signal when active.
func sessionInput(dir, session string, active bool) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "cwd": dir, "stop_hook_active": active, "session_id": session})
	return string(b)
}

// TestLoopSignalNeedsTheHooksOwnBlock generates the class of a stop with
// the loop signal in a work tree whose configuration no longer loads
// (the trusted one does), after every kind of earlier answer: such a stop
// runs the trusted gates only when this hook's last answer to the same
// session was the broken configuration's block; with verify_on_continue
// off the loop guard lets any stop with the signal go (told), with it on
// every other one is verified again, and blocks.
func TestLoopSignalNeedsTheHooksOwnBlock(t *testing.T) {
	const lintBroken = "timeout: 3\n" // no command: does not load
	type prev struct {
		name string
		// before answers the stops before the one judged (nil: none).
		before func(t *testing.T, root string, execute func(context.Context, runner.Options) runner.RunResult)
		// afterOwnBlock: the session's last answer was this hook's block.
		afterOwnBlock bool
	}
	breakTree := func(t *testing.T, root string) {
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), lintBroken)
	}
	fixTree := func(t *testing.T, root string) {
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: \"true\"\n")
	}
	stopWith := func(t *testing.T, root, session string, want runner.GauntletStatus,
		execute func(context.Context, runner.Options) runner.RunResult) {
		t.Helper()
		if out, _, _ := callExec(t, Options{}, execute, sessionInput(root, session, false)); out.Status != want {
			t.Fatalf("stop before: %s (%s), want %s", out.Status, out.Message, want)
		}
	}
	prevs := []prev{
		{name: "none"},
		{name: "block", afterOwnBlock: true, before: func(t *testing.T, root string, ex func(context.Context, runner.Options) runner.RunResult) {
			stopWith(t, root, "s", runner.StatusFailed, ex)
		}},
		{name: "approve", before: func(t *testing.T, root string, ex func(context.Context, runner.Options) runner.RunResult) {
			fixTree(t, root)
			stopWith(t, root, "s", runner.StatusPassed, ex)
		}},
		{name: "block then approve", before: func(t *testing.T, root string, ex func(context.Context, runner.Options) runner.RunResult) {
			stopWith(t, root, "s", runner.StatusFailed, ex)
			fixTree(t, root)
			stopWith(t, root, "s", runner.StatusPassed, ex)
		}},
		{name: "infrastructure error", before: func(t *testing.T, root string, _ func(context.Context, runner.Options) runner.RunResult) {
			fixTree(t, root)
			infra := func(context.Context, runner.Options) runner.RunResult {
				return runner.RunResult{Status: runner.StatusInfrastructureError, ErrorMessage: "git failed"}
			}
			stopWith(t, root, "s", runner.StatusInfrastructureError, infra)
		}},
		{name: "error", before: func(t *testing.T, root string, _ func(context.Context, runner.Options) runner.RunResult) {
			fixTree(t, root)
			boom := func(context.Context, runner.Options) runner.RunResult { panic("boom") }
			stopWith(t, root, "s", runner.StatusError, boom)
		}},
		{name: "block of another session", before: func(t *testing.T, root string, ex func(context.Context, runner.Options) runner.RunResult) {
			stopWith(t, root, "other", runner.StatusFailed, ex)
		}},
		{name: "block then a loop stop let go", before: func(t *testing.T, root string, ex func(context.Context, runner.Options) runner.RunResult) {
			stopWith(t, root, "s", runner.StatusFailed, ex)
			// Let go by the loop guard, or (verify_on_continue on) the
			// trusted gates run in the broken work tree's stead.
			if out, _, _ := callExec(t, Options{}, ex, sessionInput(root, "s", true)); out.Block() {
				t.Fatalf("the stop after the block: %s (%s)", out.Status, out.Message)
			}
		}},
	}
	for _, p := range prevs {
		for _, verify := range []bool{false, true} {
			for _, active := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/verify_on_continue=%v/loop=%v", p.name, verify, active), func(t *testing.T) {
					root := gatedProject(t, fmt.Sprintf("stop_hook:\n  verify_on_continue: %v\n", verify))
					execute := func(context.Context, runner.Options) runner.RunResult {
						return runner.RunResult{Status: runner.StatusPassed}
					}
					breakTree(t, root)
					if p.before != nil {
						p.before(t, root, execute)
						breakTree(t, root)
					}
					out, _, _ := callExec(t, Options{}, execute, sessionInput(root, "s", active))
					want := runner.StatusFailed // the broken work tree blocks
					switch {
					case active && !verify:
						want = runner.StatusStopHookActive // the loop guard
					case active && p.afterOwnBlock:
						want = runner.StatusPassed // once per block: the trusted gates run instead
					}
					if out.Status != want {
						t.Fatalf("status %s (%s), want %s", out.Status, out.Message, want)
					}
					if out.Status == runner.StatusStopHookActive && !strings.Contains(out.Message, "the gates did not run") {
						t.Errorf("the approve does not say the gates did not run: %q", out.Message)
					}
				})
			}
		}
	}
}

// TestNoteSessionKeepsTheNewest bounds the record of blocked sessions: past
// maxBlocked, the oldest block is forgotten, never the newest.
func TestNoteSessionKeepsTheNewest(t *testing.T) {
	var sessions map[string]time.Time
	for i := range maxBlocked + 5 {
		sessions = noteSession(sessions, fmt.Sprintf("s%d", i), now.Add(time.Duration(i)*time.Second))
	}
	if len(sessions) != maxBlocked {
		t.Fatalf("%d sessions kept, want %d", len(sessions), maxBlocked)
	}
	for i := range 5 {
		if _, ok := sessions[fmt.Sprintf("s%d", i)]; ok {
			t.Errorf("s%d, among the oldest, kept", i)
		}
	}
	if _, ok := sessions[fmt.Sprintf("s%d", maxBlocked+4)]; !ok {
		t.Errorf("the newest block forgotten")
	}
}

// TestLetGoOnlyAfterAConfigurationBlock generates the class of a stop with
// the loop signal after every kind of earlier answer of the session (a
// gate block, a configuration block, no block) × what the agent did to the
// work tree's configuration since (broke it, fixed it, left it) ×
// verify_on_continue. Invariant: a let-go made for a condition applies
// only to that condition. With verify_on_continue on, the only let-go is
// the stop right after a configuration block whose configuration nothing
// can run in its place; with a trusted configuration in force that
// stop runs the trusted gates instead, so that a broken work-tree
// configuration never stops them: a stop after a gate block is never let
// go (a configuration that stopped loading blocks, a failing gate blocks).
// With verify_on_continue off every stop with the loop signal is let go,
// as documented.
func TestLetGoOnlyAfterAConfigurationBlock(t *testing.T) {
	const lintBroken = "timeout: 3\n" // no command: does not load
	breakTree := func(t *testing.T, root string) {
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), lintBroken)
	}
	fixTree := func(t *testing.T, root string) {
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: make lint\n")
	}
	failing := func(context.Context, runner.Options) runner.RunResult {
		return runner.RunResult{Status: runner.StatusFailed}
	}
	passing := func(context.Context, runner.Options) runner.RunResult {
		return runner.RunResult{Status: runner.StatusPassed}
	}
	type earlier struct {
		name string
		// before answers the session's stops before the one judged, in a
		// work tree whose configuration loads.
		before func(t *testing.T, root string)
	}
	stopWith := func(t *testing.T, root string, active bool, want runner.GauntletStatus,
		execute func(context.Context, runner.Options) runner.RunResult) {
		t.Helper()
		if out, _, _ := callExec(t, Options{}, execute, sessionInput(root, "s", active)); out.Status != want {
			t.Fatalf("stop before: %s (%s), want %s", out.Status, out.Message, want)
		}
	}
	earliers := []earlier{
		{name: "no block", before: func(t *testing.T, root string) { stopWith(t, root, false, runner.StatusPassed, passing) }},
		{name: "gate block", before: func(t *testing.T, root string) { stopWith(t, root, false, runner.StatusFailed, failing) }},
		{name: "configuration block", before: func(t *testing.T, root string) {
			breakTree(t, root)
			stopWith(t, root, false, runner.StatusFailed, nil) // the broken work tree blocks; no gate runs
		}},
	}
	edits := []struct {
		name string
		do   func(t *testing.T, root string)
	}{
		{"broken", breakTree},
		{"fixed", fixTree},
		{"unchanged", func(*testing.T, string) {}},
	}
	for _, e := range earliers {
		for _, edit := range edits {
			for _, verify := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/verify_on_continue=%v", e.name, edit.name, verify), func(t *testing.T) {
					root := gatedProject(t, fmt.Sprintf("stop_hook:\n  verify_on_continue: %v\n", verify))
					e.before(t, root)
					edit.do(t, root)
					out, _, _ := callExec(t, Options{}, failing, sessionInput(root, "s", true))
					broken := edit.name == "broken" || (edit.name == "unchanged" && e.name == "configuration block")
					switch {
					case !verify:
						if out.Status != runner.StatusStopHookActive {
							t.Fatalf("status %s (%s), want the loop guard's let-go", out.Status, out.Message)
						}
					case out.Status == runner.StatusStopHookActive:
						t.Fatalf("let go (%s) although a trusted configuration can run", out.Message)
					case broken && e.name != "configuration block":
						if !out.Block() || !strings.Contains(out.Message, "no longer loads") {
							t.Fatalf("status %s (%s), want the broken configuration's block", out.Status, out.Message)
						}
					case !out.Block():
						t.Fatalf("status %s (%s), want the failing trusted gates' block", out.Status, out.Message)
					}
				})
			}
		}
	}
}
