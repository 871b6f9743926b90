package stophook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// now is the fixed clock of these tests.
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// project makes a git-rooted project with a gauntlet config holding extra
// YAML, trusted as init trusts what it writes; it returns the root.
func project(t testing.TB, extra string) string {
	t.Helper()
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
		"cli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n"+extra)
	retrust(t, root)
	return root
}

// retrust records the work tree's configuration of the project at root as
// its trusted one, as `agent-gauntlet trust --yes` does.
func retrust(t testing.TB, root string) { monorepo.Trust(t, root, now) }

// mustWrite writes content to path, making its directory.
func mustWrite(t testing.TB, path, content string) { monorepo.Write(t, path, content) }

// env is a hermetic environment: HOME is an empty directory.
func env(t testing.TB, vars map[string]string) func(string) string {
	home := t.TempDir()
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return vars[k]
	}
}

// call runs the hook on input and returns the outcome, the one stdout line
// and stderr; the gauntlet must not run.
func call(t testing.TB, o Options, input string) (Outcome, []byte, string) {
	t.Helper()
	return callExec(t, o, nil, input)
}

// callExec is call with execute standing in for the gauntlet; a nil
// execute fails the test if called.
func callExec(t testing.TB, o Options, execute func(context.Context, runner.Options) runner.RunResult, input string) (Outcome, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if o.Stdin == nil {
		o.Stdin = strings.NewReader(input)
	}
	o.Stdout, o.Stderr = &stdout, &stderr
	if o.Getenv == nil {
		o.Getenv = env(t, nil)
	}
	if o.Now == nil {
		o.Now = func() time.Time { return now }
	}
	if execute == nil {
		execute = func(context.Context, runner.Options) runner.RunResult {
			t.Helper()
			t.Errorf("ExecuteRun called")
			return runner.RunResult{Status: runner.StatusPassed}
		}
	}
	out := run(context.Background(), o, deps{execute: execute})
	line := stdout.Bytes()
	if bytes.Count(line, []byte("\n")) != 1 || !bytes.HasSuffix(line, []byte("\n")) || !json.Valid(line) {
		t.Fatalf("stdout is not one JSON line: %q", line)
	}
	return out, line, stderr.String()
}

func input(dir string, active bool) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "cwd": dir, "stop_hook_active": active, "session_id": "s"})
	return string(b)
}

// TestEveryStatusEveryDialect runs each status the runner can return
// through every dialect: only failed blocks, and each answer is the
// dialect's shape with the status unchanged where the dialect carries it.
func TestEveryStatusEveryDialect(t *testing.T) {
	root := project(t, "")
	for _, status := range runner.AllStatuses {
		for _, agent := range hookproto.Agents {
			t.Run(fmt.Sprintf("%s/%s", status, agent), func(t *testing.T) {
				var got runner.Options
				exec := func(_ context.Context, o runner.Options) runner.RunResult {
					got = o
					return runner.RunResult{Status: status, Message: "m", ErrorMessage: "boom", GatesRun: 3, GatesFailed: 1,
						ConsoleLogPath: filepath.Join(root, "gauntlet_logs", "console.4.log")}
				}
				out, line, _ := callExec(t, Options{Agent: agent, Cwd: t.TempDir()}, exec, input(root, false))
				if got.Dir != root || !got.Silent || got.Kinds != runner.KindsAll || got.Command != "stop-hook" {
					t.Errorf("ExecuteRun options = %+v", got)
				}
				if out.Status != status || out.Agent != agent {
					t.Errorf("outcome = %+v", out)
				}
				block := status == runner.StatusFailed
				if out.Block() != block || runner.IsBlocking(status) != block {
					t.Errorf("block = %v, want %v", out.Block(), block)
				}
				if out.Message == "" || !strings.HasPrefix(out.Message, runner.Message(status, "")) {
					t.Errorf("message = %q", out.Message)
				}
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatal(err)
				}
				assertDialect(t, agent, m, block, string(status), out)
			})
		}
	}
}

func assertDialect(t *testing.T, agent hookproto.Agent, m map[string]any, block bool, status string, out Outcome) {
	t.Helper()
	switch agent {
	case hookproto.Claude, hookproto.Gemini:
		want := map[bool]string{false: "approve", true: "block"}[block]
		if agent == hookproto.Gemini && block {
			want = "deny"
		}
		if m["decision"] != want || m["status"] != status || m["message"] != out.Message || m["systemMessage"] != out.Message {
			t.Errorf("answer = %v", m)
		}
		if _, has := m["reason"]; has != block {
			t.Errorf("reason present = %v, want %v", has, block)
		}
		if agent == hookproto.Claude {
			if _, has := m["stopReason"]; has != block {
				t.Errorf("stopReason present = %v, want %v", has, block)
			}
		}
	case hookproto.Codex:
		for k := range m {
			if k != "decision" && k != "reason" && k != "systemMessage" {
				t.Errorf("codex answer has key %q", k)
			}
		}
		if block != (m["decision"] == "block") {
			t.Errorf("codex answer = %v", m)
		}
	case hookproto.Cursor:
		if _, has := m["followup_message"]; has != block || len(m) != map[bool]int{false: 0, true: 1}[block] {
			t.Errorf("cursor answer = %v", m)
		}
	case hookproto.Copilot:
		if block != (m["decision"] == "block") || (!block && len(m) != 0) {
			t.Errorf("copilot answer = %v", m)
		}
	}
	if block {
		var reason string
		for _, k := range []string{"reason", "followup_message"} {
			if s, ok := m[k].(string); ok {
				reason = s
			}
		}
		if reason != out.Instructions || !strings.Contains(reason, "console.4.log") {
			t.Errorf("block reason = %q", reason)
		}
	}
}

func TestInstructions(t *testing.T) {
	got := Instructions("/abs/gauntlet_logs/console.3.log")
	for _, want := range []string{
		"GAUNTLET FAILED", "YOU MUST FIX ISSUES NOW", "cannot stop", "automatically re-run",
		"`/abs/gauntlet_logs/console.3.log`", "full output",
		"Review trust level: medium", `"status": "fixed"`, `"status": "skipped"`, `"result"`,
		"Status: Passed`", "Status: Passed with warnings`", "Status: Retry limit exceeded`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
	if strings.Contains(got, "agent-gauntlet run") || strings.Contains(got, "gauntlet run`") {
		t.Error("instructions tell the agent to run the gauntlet itself")
	}
	if strings.Contains(Instructions(""), "``") {
		t.Error("empty console log path rendered")
	}
}

func TestFastPaths(t *testing.T) {
	root := project(t, "")
	logDir := filepath.Join(root, "gauntlet_logs")
	sub := filepath.Join(root, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	noGit := t.TempDir()
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T) (Options, string)
		status runner.GauntletStatus
		detail string
	}{
		{"empty input", func(*testing.T) (Options, string) { return Options{Cwd: root}, "" }, runner.StatusInvalidInput, ""},
		{"not json", func(*testing.T) (Options, string) { return Options{Cwd: root}, "stop please" }, runner.StatusInvalidInput, ""},
		{"json array", func(*testing.T) (Options, string) { return Options{Cwd: root}, "[1]" }, runner.StatusInvalidInput, ""},
		{"stop_hook_active", func(*testing.T) (Options, string) { return Options{}, input(root, true) }, runner.StatusStopHookActive, ""},
		{"stop_hook_active outside a project", func(*testing.T) (Options, string) { return Options{}, input(noGit, true) },
			runner.StatusStopHookActive, ""},
		{"env marker", func(t *testing.T) (Options, string) {
			return Options{Getenv: env(t, map[string]string{EnvActive: "1"})}, input(root, false)
		}, runner.StatusStopHookActive, EnvActive},
		{"env marker beats verify_on_continue", func(t *testing.T) (Options, string) {
			r := project(t, "stop_hook:\n  verify_on_continue: true\n")
			return Options{Getenv: env(t, map[string]string{EnvActive: "yes"})}, input(r, true)
		}, runner.StatusStopHookActive, ""},
		{"no config", func(*testing.T) (Options, string) { return Options{}, input(noGit, false) }, runner.StatusNoConfig, ""},
		{"no config, cwd from process", func(*testing.T) (Options, string) { return Options{Cwd: noGit}, `{}` },
			runner.StatusNoConfig, ""},
		{"config above git top level is not ours", func(t *testing.T) (Options, string) {
			outer := project(t, "")
			inner := filepath.Join(outer, "vendor", "repo")
			if out, err := exec.Command("git", "init", "-q", inner).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
			return Options{}, input(inner, false)
		}, runner.StatusNoConfig, ""},
		{"disabled by project", func(t *testing.T) (Options, string) {
			return Options{}, input(project(t, "stop_hook:\n  enabled: false\n"), false)
		}, runner.StatusStopHookDisabled, "stop_hook.enabled is false, set by the trusted .gauntlet/config.yml"},
		{"disabled by env over project", func(t *testing.T) (Options, string) {
			return Options{Getenv: env(t, map[string]string{"GAUNTLET_STOP_HOOK_ENABLED": "false"})},
				input(project(t, "stop_hook:\n  enabled: true\n"), false)
		}, runner.StatusStopHookDisabled, ""},
		{"cursor aborted", func(*testing.T) (Options, string) {
			return Options{}, `{"conversation_id":"c","workspace_roots":["` + root + `"],"status":"aborted","loop_count":0}`
		}, runner.StatusStopHookDisabled, `"aborted"`},
		{"cursor loop", func(*testing.T) (Options, string) {
			return Options{}, `{"conversation_id":"c","workspace_roots":["` + root + `"],"status":"completed","loop_count":1}`
		}, runner.StatusStopHookActive, ""},
		{"lock from a subdirectory", func(t *testing.T) (Options, string) {
			mustWrite(t, lock.Path(logDir), "")
			t.Cleanup(func() { os.Remove(lock.Path(logDir)) })
			return Options{}, input(sub, false)
		}, runner.StatusLockExists, ""},
		{"interval not elapsed", func(t *testing.T) (Options, string) {
			writeState(t, logDir, now.Add(-5*time.Minute-48*time.Second))
			return Options{}, input(root, false)
		}, runner.StatusIntervalNotElapsed, "Next run in 4m12s (interval 10 min)."},
		{"interval from global config", func(t *testing.T) (Options, string) {
			writeState(t, logDir, now.Add(-12*time.Minute))
			getenv := env(t, nil)
			mustWrite(t, filepath.Join(getenv("HOME"), ".config", "agent-gauntlet", "config.yml"),
				"stop_hook:\n  run_interval_minutes: 15\n")
			return Options{Getenv: getenv}, input(root, false)
		}, runner.StatusIntervalNotElapsed, "Next run in 3m0s (interval 15 min)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, in := tc.setup(t)
			// The process installs its signal handlers in BeforeRun: the
			// fast paths answer without them.
			o.BeforeRun = func() { t.Errorf("BeforeRun called on a fast path") }
			out, _, stderr := call(t, o, in)
			if out.Status != tc.status {
				t.Fatalf("status = %s (%s), want %s; stderr:\n%s", out.Status, out.Message, tc.status, stderr)
			}
			if !strings.Contains(out.Message, tc.detail) {
				t.Errorf("message %q lacks %q", out.Message, tc.detail)
			}
			if !strings.Contains(stderr, string(tc.status)) {
				t.Errorf("stderr does not report the status: %q", stderr)
			}
		})
	}
}

// writeState records a full run that passed at at, as an earlier tool
// leaves it in the project whose log directory is logDir (at its root),
// upgraded since: no verdict book, its trust adopted from HEAD. The
// interval counts from it (a state alone counts only there:
// run.StateTaken).
func writeState(t testing.TB, logDir string, at time.Time) {
	t.Helper()
	if err := state.Write(logDir, state.State{LastRunCompletedAt: at, LastFullPassAt: at, Branch: "main", Commit: "abc"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(state.Path(logDir)) })
	p, err := place.Locate(context.Background(), filepath.Dir(logDir))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := trust.ReadRecord(p)
	if err != nil || rec == nil {
		t.Fatalf("trust record: %v", err)
	}
	rec.How = trust.HowHEAD
	if err := trust.WriteRecord(p, *rec); err != nil {
		t.Fatal(err)
	}
}

// TestRunsWhenDue pins the cases that must reach ExecuteRun.
func TestRunsWhenDue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra string
		env   map[string]string
		setup func(t *testing.T, logDir string)
		in    func(root string) string
	}{
		{"no execution state", "", nil, nil, nil},
		{"interval elapsed", "", nil, func(t *testing.T, d string) { writeState(t, d, now.Add(-15*time.Minute)) }, nil},
		{"interval 0", "stop_hook:\n  run_interval_minutes: 0\n", nil,
			func(t *testing.T, d string) { writeState(t, d, now.Add(-time.Minute)) }, nil},
		{"interval 0 from env", "", map[string]string{"GAUNTLET_STOP_HOOK_INTERVAL_MINUTES": "0"},
			func(t *testing.T, d string) { writeState(t, d, now.Add(-time.Minute)) }, nil},
		{"pending failures", "", nil, func(t *testing.T, d string) {
			writeState(t, d, now.Add(-time.Minute))
			mustWrite(t, filepath.Join(d, "check_._lint.1.log"), "Result: fail\n")
		}, nil},
		{"last run in the future", "", nil, func(t *testing.T, d string) { writeState(t, d, now.Add(time.Hour)) }, nil},
		{"a recent partial run, no full pass", "", nil, func(t *testing.T, d string) {
			st := state.State{LastRunCompletedAt: now.Add(-time.Minute), Branch: "main", Commit: "abc", RunNumber: 3, Scope: "local main"}
			if err := state.Write(d, st); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"corrupt state", "", nil, func(t *testing.T, d string) { mustWrite(t, state.Path(d), "{not json") }, nil},
		{"verify_on_continue", "stop_hook:\n  verify_on_continue: true\n", nil, nil,
			func(root string) string { return input(root, true) }},
		{"stop_hook_active false", "", nil, nil, func(root string) string { return input(root, false) }},
		{"cwd from the process", "", nil, nil, func(string) string { return `{"hook_event_name":"Stop"}` }},
		{"relative cwd", "", nil, nil, func(string) string { return `{"cwd":"."}` }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := project(t, tc.extra)
			logDir := filepath.Join(root, "gauntlet_logs")
			if tc.setup != nil {
				tc.setup(t, logDir)
			}
			in := input(root, false)
			if tc.in != nil {
				in = tc.in(root)
			}
			called, before := false, false
			exec := func(_ context.Context, o runner.Options) runner.RunResult {
				called = true
				if o.Dir != root {
					t.Errorf("Dir = %q, want %q", o.Dir, root)
				}
				if want := "s"; tc.in == nil && o.SessionID != want {
					t.Errorf("SessionID = %q, want the input's %q", o.SessionID, want)
				}
				if !before {
					t.Errorf("the run started before BeforeRun (the process's signal handlers)")
				}
				return runner.RunResult{Status: runner.StatusPassed}
			}
			out, _, stderr := callExec(t, Options{Cwd: root, Getenv: env(t, tc.env), BeforeRun: func() { before = true }}, exec, in)
			if !called || out.Status != runner.StatusPassed {
				t.Errorf("called = %v, outcome %+v; stderr:\n%s", called, out, stderr)
			}
		})
	}
}

// The run judges the configuration the hook judged: the hook opens the
// project once and hands it, with the settings it resolved (in the work
// tree's environment, without the CI variables), to the run; a
// configuration edited in between is not read again.
func TestRunGetsTheProjectTheHookOpened(t *testing.T) {
	root := project(t, "stop_hook:\n  run_interval_minutes: 0\n")
	mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: \"true\"\n")
	getenv := env(t, map[string]string{"CI": "true", "GITHUB_BASE_REF": "other"})
	exec := func(ctx context.Context, o runner.Options) runner.RunResult {
		if o.Project == nil || o.Project.Root != root || o.Settings == nil {
			t.Fatalf("the run was not handed the hook's project: %+v", o)
		}
		if o.Settings.CI || o.Settings.BaseBranch != "origin/main" || o.Settings.StopHook.RunIntervalMinutes != 0 {
			t.Errorf("settings %+v, want the work tree's (no CI, base origin/main, interval 0)", *o.Settings)
		}
		mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"), "not: [yaml\n")
		if cfg, err := o.Project.All(ctx); err != nil || cfg.Root != root {
			t.Errorf("the project the hook opened reads %v, %v", cfg, err)
		}
		return runner.RunResult{Status: runner.StatusPassed}
	}
	out, _, stderr := callExec(t, Options{Getenv: getenv}, exec, input(root, false))
	if out.Status != runner.StatusPassed {
		t.Errorf("outcome %+v; stderr:\n%s", out, stderr)
	}
}

func TestGlobalConfigInvalidWarnsOnce(t *testing.T) {
	root := project(t, "")
	getenv := env(t, nil)
	global := filepath.Join(getenv("HOME"), ".config", "agent-gauntlet", "config.yml")
	mustWrite(t, global, "stop_hook: [unclosed\n")
	writeState(t, filepath.Join(root, "gauntlet_logs"), now.Add(-5*time.Minute))
	out, _, stderr := call(t, Options{Getenv: getenv}, input(root, false))
	if out.Status != runner.StatusIntervalNotElapsed || !strings.Contains(out.Message, "interval 10 min") {
		t.Errorf("outcome = %+v (defaults not used)", out)
	}
	if n := strings.Count(stderr, "warning:"); n != 1 || !strings.Contains(stderr, global) {
		t.Errorf("stderr = %q, want one warning naming %s", stderr, global)
	}
}

// A trusted configuration that does not load lets the stop go with status
// error, naming the problem; a work tree's that does not load while the
// trusted one does was broken by the change: a block, with the problems
// and the trust note, and the loop guard holds on the stop after that
// block; a trusted one that does not load is an error, loop signal or not.
func TestInvalidProjectConfig(t *testing.T) {
	root := project(t, "")
	mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"), "entry_points: 42\n")
	out, _, _ := call(t, Options{}, input(root, false))
	if out.Status != runner.StatusFailed || !strings.Contains(out.Instructions, "entry_points: must be a list") ||
		!strings.Contains(out.Message, "changed .gauntlet/config.yml") {
		t.Errorf("broken work tree: outcome = %+v", out)
	}
	if out, _, _ := call(t, Options{}, input(root, true)); out.Status != runner.StatusStopHookActive {
		t.Errorf("broken work tree: continuation outcome = %+v", out)
	}
	retrust(t, root)
	out, _, _ = call(t, Options{}, input(root, false))
	if out.Status != runner.StatusError || !strings.Contains(out.Message, "config.yml") || !strings.Contains(out.Message, "Not verified") {
		t.Errorf("broken trusted configuration: outcome = %+v", out)
	}
	// Nothing blocked before: the loop signal changes nothing.
	if out, _, _ := call(t, Options{}, input(root, true)); out.Status != runner.StatusError {
		t.Errorf("broken trusted configuration: continuation outcome = %+v", out)
	}
}

func TestDeadline(t *testing.T) {
	root := project(t, "")
	released := make(chan struct{})
	exec := func(ctx context.Context, _ runner.Options) runner.RunResult {
		<-ctx.Done()
		close(released)
		return runner.RunResult{Status: runner.StatusFailed}
	}
	start := time.Now()
	out, _, _ := callExec(t, Options{Deadline: 200 * time.Millisecond, Now: time.Now}, exec, input(root, false))
	if out.Status != runner.StatusInfrastructureError || !strings.Contains(out.Message, "200ms") {
		t.Errorf("outcome = %+v", out)
	}
	<-released
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}

	// A run that ignores its context is abandoned after the grace period.
	hang := make(chan struct{})
	defer close(hang)
	stuck := func(context.Context, runner.Options) runner.RunResult { <-hang; return runner.RunResult{} }
	out, _, _ = callExec(t, Options{Deadline: 100 * time.Millisecond, Now: time.Now}, stuck, input(root, false))
	if out.Status != runner.StatusInfrastructureError {
		t.Errorf("stuck run outcome = %+v", out)
	}
}

// TestDefaultDeadline: without a Deadline (a hook command without
// --timeout, as the TypeScript tool installed it with Claude Code timeout
// 300 s) the run is cancelled at 270 s, and the answer comes within 300 s.
func TestDefaultDeadline(t *testing.T) {
	if DefaultAgentTimeout > 300*time.Second {
		t.Errorf("DefaultAgentTimeout = %s, above the TypeScript tool's 300 s hook timeout", DefaultAgentTimeout)
	}
	root := project(t, "")
	var got time.Duration
	exec := func(ctx context.Context, _ runner.Options) runner.RunResult {
		dl, ok := ctx.Deadline()
		if !ok {
			t.Error("the run has no deadline")
		}
		got = time.Until(dl)
		return runner.RunResult{Status: runner.StatusPassed}
	}
	callExec(t, Options{Now: time.Now}, exec, input(root, false))
	if got <= 260*time.Second || got > 270*time.Second {
		t.Errorf("run deadline in %s, want 270s", got)
	}
	if d := DeadlineFor(0); d+Grace(d) >= 300*time.Second {
		t.Errorf("default deadline %s + grace %s reaches 300s", d, Grace(d))
	}
}

// TestStaleLock: a lock of ours on this host whose process is gone (a run
// killed by SIGKILL) does not stop the hook: the run goes ahead (and takes
// the lock over). A live one does.
func TestStaleLock(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skipf("no hostname: %v", err)
	}
	root := project(t, "")
	path := lock.Path(filepath.Join(root, "gauntlet_logs"))
	// Locks taken now: the age rule (this project has no gate, so a run
	// lasts at most the overhead) does not free them.
	started := time.Now().UTC().Format(time.RFC3339)
	lockJSON := func(pid int) string {
		return fmt.Sprintf(`{"pid":%d,"host":%q,"started_at":%q}`+"\n", pid, host, started)
	}
	ran := false
	exec := func(context.Context, runner.Options) runner.RunResult {
		ran = true
		return runner.RunResult{Status: runner.StatusPassed}
	}
	// above Linux's largest pid_max (1<<22): never a live process
	mustWrite(t, path, lockJSON(1<<22+1))
	if out, _, _ := callExec(t, Options{}, exec, input(root, false)); out.Status != runner.StatusPassed || !ran {
		t.Errorf("stale lock: outcome %+v, ran %v", out, ran)
	}
	for name, content := range map[string]string{
		"live pid":        lockJSON(os.Getpid()),
		"other host":      strings.Replace(lockJSON(1<<22+1), host, host+"-elsewhere", 1),
		"TypeScript pid":  "4242\n",
		"empty lock file": "",
	} {
		mustWrite(t, path, content)
		if out, _, _ := call(t, Options{}, input(root, false)); out.Status != runner.StatusLockExists ||
			!strings.Contains(out.Message, "lock file: "+path+", taken ") {
			t.Errorf("%s: outcome %+v, want lock_exists naming the lock and its age", name, out)
		}
	}
	// The same locks, taken long ago: no run of this project lasts that
	// long, so the run takes them over.
	old := strings.Replace(lockJSON(os.Getpid()), started, "2020-01-01T00:00:00Z", 1)
	for name, content := range map[string]string{"live pid, old": old, "TypeScript pid, old": "4242\n"} {
		mustWrite(t, path, content)
		if err := os.Chtimes(path, time.Unix(1577836800, 0), time.Unix(1577836800, 0)); err != nil {
			t.Fatal(err)
		}
		ran = false
		if out, _, _ := callExec(t, Options{}, exec, input(root, false)); out.Status != runner.StatusPassed || !ran {
			t.Errorf("%s: outcome %+v, ran %v", name, out, ran)
		}
	}
}

func TestPanicsBecomeError(t *testing.T) {
	root := project(t, "debug_log:\n  enabled: true\n")
	boom := func(context.Context, runner.Options) runner.RunResult { panic("boom") }
	out, line, stderr := callExec(t, Options{}, boom, input(root, false))
	if out.Status != runner.StatusError || !strings.Contains(out.Message, "boom") || !strings.Contains(stderr, "panic") {
		t.Errorf("outcome = %+v", out)
	}
	if !bytes.Contains(line, []byte(`"decision":"approve"`)) {
		t.Errorf("answer = %s", line)
	}
	debugLog, _ := os.ReadFile(filepath.Join(root, "gauntlet_logs", ".debug.log"))
	if !strings.Contains(string(debugLog), "STOP_HOOK decision=allow reason=error") {
		t.Errorf("debug log = %q", debugLog)
	}

	// A panic in the hook itself (here: reading the environment).
	getenv := func(string) string { panic("getenv") }
	out, _, _ = call(t, Options{Getenv: getenv}, input(root, false))
	if out.Status != runner.StatusError || !strings.Contains(out.Message, "getenv") {
		t.Errorf("outcome = %+v", out)
	}
}

func TestUnknownRunStatusIsError(t *testing.T) {
	root := project(t, "")
	exec := func(context.Context, runner.Options) runner.RunResult { return runner.RunResult{} }
	if out, _, _ := callExec(t, Options{}, exec, input(root, false)); out.Status != runner.StatusError {
		t.Errorf("outcome = %+v", out)
	}
}

func TestDebugLog(t *testing.T) {
	root := project(t, "debug_log:\n  enabled: true\n")
	logDir := filepath.Join(root, "gauntlet_logs")
	exec := func(context.Context, runner.Options) runner.RunResult {
		return runner.RunResult{Status: runner.StatusFailed}
	}
	callExec(t, Options{}, exec, input(root, false))
	call(t, Options{}, input(root, true))
	data, err := os.ReadFile(filepath.Join(logDir, ".debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[2026-11-22T12:00:00Z] STOP_HOOK decision=block reason=failed\n" +
		"[2026-11-22T12:00:00Z] STOP_HOOK decision=allow reason=stop_hook_active\n"
	if string(data) != want {
		t.Errorf("debug log =\n%s\nwant\n%s", data, want)
	}
	// Disabled: nothing written.
	root2 := project(t, "")
	call(t, Options{}, input(root2, true))
	if _, err := os.Stat(filepath.Join(root2, "gauntlet_logs", ".debug.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("debug log written while disabled: %v", err)
	}
}

// neverCloses is a stdin whose writer never closes it.
func neverCloses(t *testing.T, data string) io.Reader {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	go func() { _, _ = w.Write([]byte(data)) }()
	return r
}

func TestStdinNeverCloses(t *testing.T) {
	root := project(t, "")
	// Nothing arrives: the bound ends the wait, the empty input is invalid.
	start := time.Now()
	out, _, _ := call(t, Options{Stdin: neverCloses(t, ""), StdinTimeout: 100 * time.Millisecond}, "")
	if out.Status != runner.StatusInvalidInput || !strings.Contains(out.Message, "No input arrived on stdin within 100ms.") {
		t.Errorf("outcome = %+v", out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	// A whole object and a newline: no need to wait for the bound.
	start = time.Now()
	out, _, _ = call(t, Options{Stdin: neverCloses(t, input(root, true)+"\n"), StdinTimeout: time.Hour}, "")
	if out.Status != runner.StatusStopHookActive {
		t.Errorf("outcome = %+v", out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	// Half an object, then silence: the bound ends it, the input is invalid.
	out, _, _ = call(t, Options{Stdin: neverCloses(t, `{"cwd":`), StdinTimeout: 100 * time.Millisecond}, "")
	if out.Status != runner.StatusInvalidInput {
		t.Errorf("outcome = %+v", out)
	}
}

func TestStdinTooLarge(t *testing.T) {
	big := `{"cwd":"/x","pad":"` + strings.Repeat("a", MaxInput) + `"}`
	out, _, _ := call(t, Options{}, big)
	if out.Status != runner.StatusInvalidInput || !strings.Contains(out.Message, "larger than") {
		t.Errorf("outcome = %+v", out)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("write |1: broken pipe") }

func TestClosedStdout(t *testing.T) {
	out := Run(context.Background(), Options{Stdin: strings.NewReader(""), Stdout: failingWriter{}, Stderr: failingWriter{}})
	if out.Status != runner.StatusInvalidInput {
		t.Errorf("outcome = %+v", out)
	}
}

// A hook whose command line does not parse allows with status error in
// the dialect asked for, naming the fault, whatever its input.
func TestFault(t *testing.T) {
	var buf bytes.Buffer
	Run(context.Background(), Options{Agent: hookproto.Codex, Stdin: strings.NewReader(""), Stdout: &buf, Stderr: io.Discard,
		Fault: errors.New("unknown flag --frob")})
	if got := buf.String(); !strings.HasPrefix(got, `{"systemMessage":"⚠ Stop hook error — allowing the stop. unknown flag --frob`) {
		t.Errorf("Run with a fault = %s", got)
	}
	buf.Reset()
	Run(context.Background(), Options{Stdin: strings.NewReader(`{"hook_event_name":"Stop"}`), Stdout: &buf, Stderr: io.Discard,
		Cwd: t.TempDir(), Fault: errors.New("x")})
	if !strings.HasPrefix(buf.String(), `{"decision":"approve","status":"error"`) {
		t.Errorf("Run with a fault = %s", buf.String())
	}
}

func TestDeadlineFor(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{
		{600 * time.Second, 540 * time.Second},
		{60 * time.Second, 54 * time.Second},
		{30 * time.Second, 25 * time.Second},
		{4 * time.Second, 2 * time.Second},
		{300 * time.Second, 270 * time.Second},
		{0, 270 * time.Second}, // DefaultAgentTimeout: the TypeScript tool's 300 s
	} {
		got := DeadlineFor(tc.timeout)
		if got != tc.want {
			t.Errorf("DeadlineFor(%s) = %s, want %s", tc.timeout, got, tc.want)
		}
		timeout := tc.timeout
		if timeout == 0 {
			timeout = DefaultAgentTimeout
		}
		if got+Grace(got) >= timeout {
			t.Errorf("deadline %s + grace %s reaches the agent's timeout %s", got, Grace(got), timeout)
		}
	}
}

// FuzzHook feeds any bytes to the whole hook in a project whose gates fail,
// in every dialect: it never panics, always writes exactly one line of valid
// JSON, and blocks only when the run failed.
func FuzzHook(f *testing.F) {
	root := project(f, "")
	for _, s := range []string{"", "{}", "null", `{"stop_hook_active":true}`, input(root, false),
		`{"workspace_roots":["."],"status":"completed","loop_count":0}`, `{"sessionId":"s"}`,
		"{\"cwd\":\"\xff\"}", `{"cwd":"` + strings.Repeat("../", 50) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, agent := range append([]hookproto.Agent{""}, hookproto.Agents...) {
			exec := func(context.Context, runner.Options) runner.RunResult {
				return runner.RunResult{Status: runner.StatusFailed}
			}
			out, line, _ := callExec(t, Options{Agent: agent, Cwd: root, StdinTimeout: time.Second}, exec,
				string(data))
			if !slices.Contains(runner.AllStatuses, out.Status) || out.Message == "" {
				t.Fatalf("outcome %+v", out)
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("answer %s: %v", line, err)
			}
			switch m["decision"] {
			case nil, "approve", "block", "deny":
			default:
				t.Fatalf("decision %v", m["decision"])
			}
			blocked := m["decision"] == "block" || m["decision"] == "deny" || m["followup_message"] != nil
			if blocked != (out.Status == runner.StatusFailed) {
				t.Fatalf("blocked = %v for status %s: %s", blocked, out.Status, line)
			}
		}
	})
}

// The injected clock drives the interval only: a clock far in the past or
// future must not turn the real-time deadline into an instant timeout.
func TestDeadlineIgnoresInjectedClock(t *testing.T) {
	root := project(t, "")
	passed := func(ctx context.Context, _ runner.Options) runner.RunResult {
		if ctx.Err() != nil {
			return runner.RunResult{Status: runner.StatusInfrastructureError}
		}
		return runner.RunResult{Status: runner.StatusPassed}
	}
	for _, clock := range []time.Time{time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)} {
		out, line, _ := callExec(t, Options{Now: func() time.Time { return clock }, Deadline: time.Minute}, passed, input(root, false))
		if out.Status != runner.StatusPassed {
			t.Fatalf("clock %v: status %s, want passed (the deadline fired at once?): %s", clock, out.Status, line)
		}
	}
}
