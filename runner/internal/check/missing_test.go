//go:build unix

package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// A program the shell cannot run is judged by the shell's own verdict,
// wherever the command names it: the machine's program (a name on PATH, a
// path outside the project) is an infrastructure error, the project's own
// script is the change's to fix, and a command that handles the missing
// program itself is judged by what it does.
func TestMissingProgramWherever(t *testing.T) {
	// wrappers put the program (%[1]s) where commands put programs.
	wrappers := []string{
		"%[1]s .", "env %[1]s .", "FOO=1 %[1]s .", "cd . && %[1]s .", "set -e; %[1]s .", "exec %[1]s .",
		"nice %[1]s .", "timeout 5 %[1]s .", "echo x | %[1]s", "(%[1]s .)", "{ %[1]s .; }", "true && %[1]s .",
		"if true; then %[1]s .; fi", "echo x | xargs %[1]s", "%[1]s . 2>&1", "%[1]s . > out.txt",
	}
	programs := []struct {
		name, prog string
		// status and infra: what a missing program ends as.
		status gate.Status
		infra  bool
	}{
		{"a name not on PATH", "no-such-tool-xyz", gate.StatusError, true},
		{"a path outside the project", "/nonexistent-dir-xyz/bin/tool", gate.StatusError, true},
		{"the project's script, deleted", "./scripts/gone.sh", gate.StatusError, false},
		{"the project's script, not executable", "./noexec.sh", gate.StatusError, false},
		{"a program that runs and fails", "false", gate.StatusFail, false},
	}
	for _, p := range programs {
		for _, w := range wrappers {
			cmd := fmt.Sprintf(w, p.prog)
			t.Run(p.name+"/"+cmd, func(t *testing.T) {
				e := env(t)
				dir := filepath.Join(e.Root, "sub dir")
				if err := os.WriteFile(filepath.Join(dir, "noexec.sh"), []byte("exit 0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				j := job(cmd, nil)
				res := runWithPreflight(t, j, e)
				want := p.status
				if res.Status != want || res.Infrastructure != p.infra {
					t.Errorf("status %s, infrastructure %v (%s); want %s, %v", res.Status, res.Infrastructure, res.Message, want, p.infra)
				}
				if want == gate.StatusError && !strings.HasPrefix(res.Message, "Missing command: ") {
					t.Errorf("message %q, want Missing command: ...", res.Message)
				}
			})
		}
	}
}

// runWithPreflight runs job as a run does: its preflight first.
func runWithPreflight(t *testing.T, j gate.Job, e gate.Env) gate.Result {
	t.Helper()
	if msg := Preflight(context.Background(), j, e); msg != "" {
		return PreflightResult(j, e, msg)
	}
	return Run(context.Background(), j, e)
}

// A command that handles its missing program itself is run and judged by
// what it does: its fallback's failure fails, its fallback's pass passes.
func TestMissingProgramHandled(t *testing.T) {
	for cmd, want := range map[string]gate.Status{
		"no-such-tool-xyz . 2>/dev/null || false":           gate.StatusFail,
		"no-such-tool-xyz . 2>/dev/null || true":            gate.StatusPass,
		"command -v no-such-tool-xyz >/dev/null || exit 3":  gate.StatusFail,
		"no-such-tool-xyz . || echo fallback; exit 4":       gate.StatusFail,
		"sh -c 'exit 127'":                                  gate.StatusFail,
		"echo 'sh: 1: printf: not found'; exit 127":         gate.StatusFail,
		"echo 'sh: 1: no-such-tool-xyz: not found'; exit 1": gate.StatusFail,
		// A script of the project forging the shell's word for a program
		// the command does not name.
		"./forge.sh": gate.StatusFail,
	} {
		t.Run(cmd, func(t *testing.T) {
			e := env(t)
			forge := "#!/bin/sh\necho 'sh: 1: no-such-tool-xyz: not found' >&2\nexit 127\n"
			if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "forge.sh"), []byte(forge), 0o755); err != nil {
				t.Fatal(err)
			}
			res := runWithPreflight(t, job(cmd, nil), e)
			if res.Status != want || res.Infrastructure {
				t.Errorf("status %s, infrastructure %v (%s); want %s", res.Status, res.Infrastructure, res.Message, want)
			}
		})
	}
}

// The preflight of a plain command (a fast path, no process) agrees with
// the shell's verdict on the same command.
func TestPreflightAgreesWithShell(t *testing.T) {
	for _, cmd := range []string{"no-such-tool-xyz --all", "/nonexistent-dir-xyz/tool", "./scripts/gone.sh", "./noexec.sh", "env no-such-tool-xyz"} {
		t.Run(cmd, func(t *testing.T) {
			e := env(t)
			if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "noexec.sh"), []byte("exit 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			j := job(cmd, nil)
			msg := Preflight(context.Background(), j, e)
			if msg == "" {
				t.Fatalf("preflight let %q run", cmd)
			}
			fast := PreflightResult(j, e, msg)
			slow := Run(context.Background(), job(cmd+" ; exit $?", nil), e)
			if fast.Status != slow.Status || fast.Infrastructure != slow.Infrastructure || fast.Message != slow.Message {
				t.Errorf("preflight %s %v %q, shell %s %v %q", fast.Status, fast.Infrastructure, fast.Message,
					slow.Status, slow.Infrastructure, slow.Message)
			}
		})
	}
}

// A check the gauntlet gives no person (no terminal, no input, no editor,
// git's prompts off) and that wanted one reached no verdict: an
// infrastructure error that says why. A crash of its own (SIGSEGV), a
// signal it sent itself (TestSignalSenders), input it read as empty, and a
// program that merely prints such words and passes are its own.
func TestNoVerdictFromOutside(t *testing.T) {
	tests := []struct {
		cmd    string
		status gate.Status
		infra  bool
		msg    string
	}{
		{"read answer < /dev/tty; test \"$answer\" = y", gate.StatusError, true, "Wanted a person"},
		{"echo x; exec 3</dev/tty", gate.StatusError, true, "Wanted a person"},
		{"echo 'fatal: could not read Username for x: terminal prompts disabled' >&2; exit 128", gate.StatusError, true, "terminal prompts disabled"},
		{"kill -KILL $$", gate.StatusFail, false, ""}, // the OOM killer's: the change's memory
		{"kill -TERM $$", gate.StatusFail, false, "Killed by SIGTERM, not sent by agent-gauntlet"},
		{"kill -SEGV $$", gate.StatusFail, false, ""},
		{"kill -ABRT $$", gate.StatusFail, false, ""},
		{"printf 'Continue? [y/N] '; read answer; test \"$answer\" = y", gate.StatusFail, false, "Exited with code 1"},
		{"echo '/dev/tty: No such device or address'; exit 0", gate.StatusPass, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			res := runWithPreflight(t, job(tc.cmd, nil), env(t))
			if res.Status != tc.status || res.Infrastructure != tc.infra || !strings.Contains(res.Message, tc.msg) {
				t.Errorf("status %s, infrastructure %v, %q; want %s, %v, ~%q", res.Status, res.Infrastructure, res.Message, tc.status, tc.infra, tc.msg)
			}
		})
	}
}
