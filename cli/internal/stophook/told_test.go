package stophook

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// failingLog is the log of a failed run of the check lint in the entry
// point ".", as runs write it.
const failingLog = "check_._lint.1.log"

// failedLog is the content of a check's log that failed.
const failedLog = "make: *** [lint] Error 1\nResult: fail - Exited with code 1\n"

// gatedProject is a trusted project with the check lint at its top level
// and extra YAML in config.yml.
func gatedProject(t *testing.T, extra string) string {
	t.Helper()
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: make lint\n")
	mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "vet.yml"), "command: make vet\n")
	mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
		"cli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [lint, vet]\n"+extra)
	retrust(t, root)
	return root
}

// approvePath is one way the stop hook lets an agent stop.
type approvePath struct {
	name string
	// extra is YAML added to config.yml; env the hook's environment.
	extra string
	env   map[string]string
	// setup prepares the project at root (log dir logDir) and returns the
	// stop: its directory and whether it follows a block, or a raw input.
	setup func(t *testing.T, root, logDir string, getenv func(string) string) stop
	// only, when set, is the one agent the path exists for; noPending
	// marks a path that a pending failure rules out (it runs instead);
	// logsOnly one without a configuration to name the gates by: the
	// failure logs are named instead.
	only      hookproto.Agent
	noPending bool
	logsOnly  bool
	// status is the answer's status; run, when set, is the status the run
	// returns (the gauntlet runs).
	status runner.GauntletStatus
	run    runner.GauntletStatus
	// source is what the message must name as the reason (a variable, a
	// file), "" for nothing in particular.
	source string
}

// approvePaths are every way the hook approves. For each, with and without
// a failure pending, the answer is either a pass of the work tree as it is
// with nothing pending, or its message (the systemMessage) says what was
// not verified, naming what is pending, and its pending list holds it.
var approvePaths = []approvePath{
	{name: "invalid input", status: runner.StatusInvalidInput,
		setup: func(*testing.T, string, string, func(string) string) stop { return stop{raw: "not json"} }},
	{name: "gauntlet's own review CLI", env: map[string]string{EnvActive: "1"}, status: runner.StatusStopHookActive,
		source: EnvActive, setup: stopIn(false)},
	{name: "cursor turn aborted", status: runner.StatusStopHookDisabled, source: `"aborted"`, only: hookproto.Cursor,
		setup: func(_ *testing.T, root, _ string, _ func(string) string) stop {
			return stop{raw: `{"conversation_id":"c","workspace_roots":["` + root + `"],"status":"aborted","loop_count":0}`}
		}},
	{name: "loop guard", status: runner.StatusStopHookActive, source: "verify_on_continue is off (the default)",
		setup: stopIn(true)},
	{name: "loop guard set off in the global configuration", status: runner.StatusStopHookActive,
		source: "the global configuration", setup: func(t *testing.T, root, _ string, getenv func(string) string) stop {
			writeGlobal(t, getenv, "stop_hook:\n  verify_on_continue: false\n")
			return stop{dir: root, continuing: true}
		}},
	{name: "disabled by the environment", env: map[string]string{"GAUNTLET_STOP_HOOK_ENABLED": "0"},
		status: runner.StatusStopHookDisabled, source: "GAUNTLET_STOP_HOOK_ENABLED=0", setup: stopIn(false)},
	{name: "disabled by the global configuration", status: runner.StatusStopHookDisabled,
		source: "the global configuration", setup: func(t *testing.T, root, _ string, getenv func(string) string) stop {
			writeGlobal(t, getenv, "stop_hook:\n  enabled: false\n")
			return stop{dir: root}
		}},
	{name: "disabled by the trusted configuration", extra: "stop_hook:\n  enabled: false\n",
		status: runner.StatusStopHookDisabled, source: "the trusted .gauntlet/config.yml", setup: stopIn(false)},
	{name: "lock held", status: runner.StatusLockExists, source: lock.File,
		setup: func(t *testing.T, root, logDir string, _ func(string) string) stop {
			mustWrite(t, lock.Path(logDir), "")
			return stop{dir: root}
		}},
	{name: "interval", status: runner.StatusIntervalNotElapsed, source: "run_interval_minutes is set by the default",
		noPending: true, setup: func(t *testing.T, root, logDir string, _ func(string) string) stop {
			writeState(t, logDir, now.Add(-time.Minute))
			return stop{dir: root}
		}},
	{name: "no project", status: runner.StatusNoConfig, source: "Looked at and above", logsOnly: true,
		setup: func(t *testing.T, _, _ string, _ func(string) string) stop {
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
			mustWrite(t, filepath.Join(dir, config.DefaultLogDir, failingLog), failedLog)
			return stop{dir: dir}
		}},
	{name: "trusted configuration without gates", status: runner.StatusNoConfig, source: "has no gates", logsOnly: true,
		setup: func(t *testing.T, root, _ string, _ func(string) string) stop {
			if err := os.RemoveAll(filepath.Join(root, ".gauntlet")); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(root, "keep"), "")
			retrust(t, root)
			return stop{dir: root}
		}},
	{name: "trusted configuration that does not load", status: runner.StatusError, source: "does not load", logsOnly: true,
		setup: func(t *testing.T, root, _ string, _ func(string) string) stop {
			mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"), "entry_points: 42\n")
			retrust(t, root)
			return stop{dir: root}
		}},
	{name: "broken work tree, right after its block: the trusted gates pass", extra: "stop_hook:\n  verify_on_continue: true\n",
		status: runner.StatusPassed, run: runner.StatusPassed, source: "changed .gauntlet/checks/lint.yml",
		setup: func(t *testing.T, root, _ string, _ func(string) string) stop {
			mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "timeout: 3\n")
			return stop{dir: root, continuing: true, afterBlock: true}
		}},
	{name: "weakened work tree, trusted gates pass", status: runner.StatusPassed, run: runner.StatusPassed,
		source: "changed .gauntlet/checks/lint.yml", setup: func(t *testing.T, root, _ string, _ func(string) string) stop {
			mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: \"true\"\n")
			return stop{dir: root}
		}},
	{name: "deleted work tree configuration, trusted gates pass", status: runner.StatusPassed, run: runner.StatusPassed,
		source: "removed .gauntlet/checks/lint.yml", setup: func(t *testing.T, root, _ string, _ func(string) string) stop {
			if err := os.RemoveAll(filepath.Join(root, ".gauntlet")); err != nil {
				t.Fatal(err)
			}
			return stop{dir: root}
		}},
	{name: "cleared failures, then no changes", status: runner.StatusNoChanges, run: runner.StatusNoChanges,
		source: "agent-gauntlet clean", setup: func(t *testing.T, root, logDir string, _ func(string) string) stop {
			clearedBook(t, root, logDir, "check:.:vet")
			return stop{dir: root}
		}},
	{name: "retry limit", status: runner.StatusRetryLimitExceeded, run: runner.StatusRetryLimitExceeded,
		source: "max_retries: 3", setup: stopIn(false)},
	{name: "infrastructure error", status: runner.StatusInfrastructureError, run: runner.StatusInfrastructureError,
		setup: stopIn(false)},
	{name: "error", status: runner.StatusError, run: runner.StatusError, setup: stopIn(false)},
	{name: "no changes", status: runner.StatusNoChanges, run: runner.StatusNoChanges, setup: stopIn(false)},
	{name: "no applicable gates", status: runner.StatusNoApplicableGates, run: runner.StatusNoApplicableGates,
		setup: stopIn(false)},
	{name: "passed", status: runner.StatusPassed, run: runner.StatusPassed, setup: stopIn(false)},
	{name: "passed with warnings", status: runner.StatusPassedWithWarnings, run: runner.StatusPassedWithWarnings,
		source: "The agent skipped 2 review violation(s) instead of fixing them", setup: stopIn(false)},
}

// clearedBook writes the verdict book of the project at root as
// `agent-gauntlet clean` leaves it after job failed: the failure dropped,
// unverified; a check whose failure log is in logDir (the pending case)
// fails after it.
func clearedBook(t *testing.T, root, logDir, job string) {
	t.Helper()
	p, err := place.Locate(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = verdicts.Update(verdicts.KeyOf(p), func(b *verdicts.Book) error {
		if err := b.RecordCheck(job, verdicts.CheckVerdict{Status: verdicts.StatusFail, Run: 7, At: now}); err != nil {
			return err
		}
		b.Clear(now, "agent-gauntlet clean", nil)
		if _, err := os.Stat(filepath.Join(logDir, failingLog)); err == nil {
			return b.RecordCheck("check:.:lint", verdicts.CheckVerdict{Status: verdicts.StatusFail, Run: 8, At: now, Log: failingLog})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stop is the stop a path answers: in dir, continuing right after a block,
// in the shape of the agent's client; or raw, as it is.
type stop struct {
	dir        string
	continuing bool
	raw        string
	// afterBlock: the same stop without the loop signal comes first and
	// must block (the loop signal counts after the hook's own block).
	afterBlock bool
}

// in is the stop as agent's client sends it.
func (s stop) in(agent hookproto.Agent) string {
	if s.raw != "" {
		return s.raw
	}
	switch agent {
	case hookproto.Cursor:
		n := 0
		if s.continuing {
			n = 1
		}
		return fmt.Sprintf(`{"conversation_id":"c","hook_event_name":"stop","workspace_roots":[%q],"status":"completed","loop_count":%d}`, s.dir, n)
	case hookproto.Copilot:
		return fmt.Sprintf(`{"sessionId":"s","cwd":%q,"stopReason":"end_turn","stop_hook_active":%v}`, s.dir, s.continuing)
	}
	return input(s.dir, s.continuing)
}

// stopIn is a setup whose stop is in the project (continuing: right after
// a block).
func stopIn(continuing bool) func(*testing.T, string, string, func(string) string) stop {
	return func(_ *testing.T, root, _ string, _ func(string) string) stop {
		return stop{dir: root, continuing: continuing}
	}
}

// writeGlobal writes the global configuration of getenv's HOME.
func writeGlobal(t *testing.T, getenv func(string) string, content string) {
	mustWrite(t, filepath.Join(getenv("HOME"), ".config", "agent-gauntlet", "config.yml"), content)
}

func TestEveryApproveSaysWhatWasNotVerified(t *testing.T) {
	for _, path := range approvePaths {
		for _, pending := range []bool{false, true} {
			if pending && path.noPending {
				continue
			}
			t.Run(fmt.Sprintf("%s/pending=%v", path.name, pending), func(t *testing.T) {
				root := gatedProject(t, path.extra)
				logDir := filepath.Join(root, "gauntlet_logs")
				if pending {
					mustWrite(t, filepath.Join(logDir, failingLog), failedLog)
				}
				getenv := env(t, path.env)
				st := path.setup(t, root, logDir, getenv)
				ran := false
				execute := func(context.Context, runner.Options) runner.RunResult {
					ran = true
					if path.run == "" {
						t.Errorf("the gauntlet ran")
					}
					if path.run == runner.StatusPassed || path.run == runner.StatusPassedWithWarnings {
						// A pass archives the logs it verified.
						os.Remove(filepath.Join(logDir, failingLog))
					}
					msg := "it broke"
					if path.run == runner.StatusNoApplicableGates {
						// Its message names gates that applied and could
						// not run: then not a pass (testscript
						// stophook_check_workdir_gone).
						msg = ""
					}
					return runner.RunResult{Status: path.run, ErrorMessage: msg, Skipped: 2}
				}
				for _, agent := range hookproto.Agents {
					if path.only != "" && agent != path.only {
						continue
					}
					if st.afterBlock {
						first := st
						first.continuing = false
						if out, _, _ := callExec(t, Options{Agent: agent, Getenv: getenv}, execute, first.in(agent)); !out.Block() {
							t.Fatalf("%s: the stop before is not a block: %s (%s)", agent, out.Status, out.Message)
						}
					}
					out, line, stderr := callExec(t, Options{Agent: agent, Getenv: getenv}, execute, st.in(agent))
					if out.Status != path.status {
						t.Fatalf("%s: status %s (%s), want %s", agent, out.Status, out.Message, path.status)
					}
					if out.Block() {
						t.Fatalf("%s: blocked", agent)
					}
					assertTold(t, agent, path, out, line, stderr, pending && path.run != runner.StatusPassed &&
						path.run != runner.StatusPassedWithWarnings)
					assertInStatus(t, agent, out)
				}
				if (path.run != "") != ran {
					t.Errorf("ran = %v", ran)
				}
			})
		}
	}
}

// assertInStatus checks that what the answer out said to a person, every
// notice and "Not verified" sentence of it, is what `agent-gauntlet
// status` shows of the project the stop judged (Judgment.Answers), as the
// newest answer: a client whose allow shows nothing (Cursor, Copilot CLI)
// loses nothing of it.
func assertInStatus(t *testing.T, agent hookproto.Agent, out Outcome) {
	t.Helper()
	if out.Root == "" {
		return // no project judged: status has none to show either
	}
	j, err := Judge(context.Background(), out.Root, os.Getenv, now)
	if err != nil {
		t.Fatalf("%s: judge: %v", agent, err)
	}
	answers := j.Answers(context.Background())
	if len(answers) == 0 || answers[0].Message != out.Message || answers[0].Status != string(out.Status) {
		t.Fatalf("%s: status shows %+v, not the answer %s: %q", agent, answers, out.Status, out.Message)
	}
}

// assertTold checks one answer: a pass of the work tree as it is says
// nothing more (unless the configuration differs); any other approve says
// what was not verified, in the field the agent's client shows (stderr
// for the clients whose allow carries no message), naming the reason's
// source and, when a failure is pending, the gate.
func assertTold(t *testing.T, agent hookproto.Agent, path approvePath, out Outcome, line []byte, stderr string, pending bool) {
	t.Helper()
	realPass := slices.Contains(passes, out.Status) && !pending && !strings.Contains(path.name, "cleared")
	if realPass {
		if strings.Contains(out.Message, "Not verified") || len(out.Pending) > 0 {
			t.Errorf("%s: a pass says %q (pending %v)", agent, out.Message, out.Pending)
		}
	} else if !strings.Contains(out.Message, "Not verified: ") {
		t.Errorf("%s: %q does not say what was not verified", agent, out.Message)
	}
	if path.source != "" && !strings.Contains(out.Message, path.source) {
		t.Errorf("%s: %q does not name %q", agent, out.Message, path.source)
	}
	wantPending := []string{"check:.:lint"}
	if strings.Contains(path.name, "cleared") {
		wantPending = []string{"check:.:vet"}
		if pending {
			wantPending = []string{"check:.:lint", "check:.:vet"}
		}
	}
	switch {
	case path.logsOnly && pending:
		if !strings.Contains(out.Message, "failure logs in") || len(out.Pending) > 0 {
			t.Errorf("%s: pending failure logs not named: %q, pending %v", agent, out.Message, out.Pending)
		}
	case path.logsOnly, !pending && !strings.Contains(path.name, "cleared"):
	case out.Status == runner.StatusInvalidInput, out.Status == runner.StatusStopHookActive && path.env[EnvActive] != "",
		path.only == hookproto.Cursor:
		// Answered before the project is known.
	default:
		for _, g := range wantPending {
			if !strings.Contains(out.Message, g) {
				t.Errorf("%s: pending failure %s not named: %q", agent, g, out.Message)
			}
		}
		if !slices.Equal(out.Pending, wantPending) {
			t.Errorf("%s: pending %v, want %v", agent, out.Pending, wantPending)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	shown, _ := m["systemMessage"].(string)
	switch agent {
	case hookproto.Cursor, hookproto.Copilot:
		// Their allow carries no message: the diagnostic line is what is
		// left, and agent-gauntlet status.
		shown = stderr
	}
	if !realPass && !strings.Contains(shown, "Not verified: ") {
		t.Errorf("%s: what the user is shown (%q) does not say what was not verified", agent, shown)
	}
	if p, ok := m["pending"]; ok && len(out.Pending) == 0 || !ok && len(out.Pending) > 0 && usesPendingKey(agent) {
		t.Errorf("%s: pending key %v, want %v", agent, p, out.Pending)
	}
}

// usesPendingKey reports whether agent's answer carries the pending list.
func usesPendingKey(agent hookproto.Agent) bool {
	switch agent {
	case hookproto.Codex, hookproto.Cursor, hookproto.Copilot:
		return false
	}
	return true
}

// A pass that could not look at everything (the run's Unverified), and a
// loss of the verdict record (a clearing that names no gate), are told;
// a pass with neither is not.
func TestUnverifiedNoteOfPassesAndLosses(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	lost := &runner.Cleared{At: at, Reason: "unusable verdict record x: torn"}
	for _, c := range []struct {
		name string
		out  Outcome
		view pendingView
		want string
	}{
		{"pass", Outcome{Status: runner.StatusPassed}, pendingView{}, ""},
		{"no changes", Outcome{Status: runner.StatusNoChanges}, pendingView{}, ""},
		{"commits not looked at", Outcome{Status: runner.StatusNoChanges, unverified: "the commits of main up to HEAD abc"},
			pendingView{}, "Not verified: the commits of main up to HEAD abc."},
		{"record lost", Outcome{Status: runner.StatusPassed}, pendingView{Cleared: lost},
			"Not verified: whatever was pending before 2026-01-01T10:00:00Z (unusable verdict record x: torn), with no passing run since."},
		{"record lost, loop guard", Outcome{Status: runner.StatusStopHookActive}, pendingView{Cleared: lost},
			"Not verified: whatever was pending before 2026-01-01T10:00:00Z (unusable verdict record x: torn), with no passing run since."},
	} {
		if got := unverifiedNote(c.out, c.view, ""); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A file of .gauntlet/ the loader reads runs as trusted whatever the work
// tree holds; any other file that differs (changed, removed, added) is
// read by a gate's command from the work tree, and is named. Generated
// over every way each kind of file can differ.
func TestWorkTreeRead(t *testing.T) {
	trusted := config.Files{
		".gauntlet/config.yml":      []byte("entry_points:\n  - path: src\n    checks: [lint]\n    reviews: [code]\n"),
		".gauntlet/checks/lint.yml": []byte("command: sh ../.gauntlet/lint.sh\n"),
		".gauntlet/reviews/code.md": []byte("Review.\n"),
		".gauntlet/lint.sh":         []byte("! grep -rq BAD .\n"),
		".gauntlet/data/words.txt":  []byte("BAD\n"),
	}
	loaded := []string{".gauntlet/config.yml", ".gauntlet/checks/lint.yml", ".gauntlet/reviews/code.md"}
	others := []string{".gauntlet/lint.sh", ".gauntlet/data/words.txt", ".gauntlet/new.sh"}
	for _, f := range append(slices.Clone(loaded), others...) {
		for _, how := range []string{"changed", "removed", "added"} {
			var d trust.Diff
			switch how {
			case "changed":
				d.Changed = []string{f}
			case "removed":
				d.Removed = []string{f}
			default:
				d.Added = []string{f}
			}
			got := workTreeRead("/p", d, trusted)
			want := []string(nil)
			if !slices.Contains(loaded, f) {
				want = []string{f}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: workTreeRead = %v, want %v", how, f, got, want)
			}
		}
	}
	all := trust.Diff{Changed: []string{".gauntlet/lint.sh", ".gauntlet/config.yml"}, Added: []string{".gauntlet/a.sh"}}
	if got := workTreeRead("/p", all, trusted); !slices.Equal(got, []string{".gauntlet/a.sh", ".gauntlet/lint.sh"}) {
		t.Errorf("workTreeRead = %v, want the two scripts, sorted", got)
	}
	// a check file only the work tree's configuration loads runs nowhere:
	// not named; the script it would run is
	root := t.TempDir()
	work := maps.Clone(trusted)
	work[".gauntlet/config.yml"] = []byte("entry_points:\n  - path: src\n    checks: [lint, more]\n    reviews: [code]\n")
	work[".gauntlet/checks/more.yml"] = []byte("command: sh ../.gauntlet/more.sh\n")
	work[".gauntlet/more.sh"] = []byte("exit 0\n")
	for f, data := range work {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	added := trust.Diff{Changed: []string{".gauntlet/config.yml"}, Added: []string{".gauntlet/checks/more.yml", ".gauntlet/more.sh"}}
	if got := workTreeRead(root, added, trusted); !slices.Equal(got, []string{".gauntlet/more.sh"}) {
		t.Errorf("workTreeRead = %v, want the script alone", got)
	}
	s := &site{workRead: []string{".gauntlet/lint.sh"}}
	if got := s.workReadUnverified(); got != "the gates ran .gauntlet/lint.sh as the work tree has it, not as trusted" {
		t.Errorf("workReadUnverified = %q", got)
	}
	if got := (&site{}).workReadUnverified(); got != "" {
		t.Errorf("workReadUnverified with nothing read = %q, want none", got)
	}
}
