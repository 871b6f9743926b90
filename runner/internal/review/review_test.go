package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/internal/standin"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// reply is one canned answer of a fake CLI.
type reply struct {
	stdout string
	stderr string
	exit   int
	err    error
}

// fakeCLIs answers per adapter name from queues (the last reply repeats)
// and records every call.
type fakeCLIs struct {
	mu      sync.Mutex
	replies map[string][]reply
	calls   []fakeCall
	missing map[string]bool
}

type fakeCall struct {
	adapter string
	stdin   string
}

func (f *fakeCLIs) invoke(_ context.Context, spec adapter.Spec, req adapter.Request) (adapter.Answer, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{spec.Name, req.Stdin})
	q := f.replies[spec.Name]
	r := reply{stdout: standin.PassAnswer}
	if len(q) > 0 {
		r = q[0]
		if len(q) > 1 {
			f.replies[spec.Name] = q[1:]
		}
	}
	f.mu.Unlock()
	if req.Log != nil {
		_, _ = io.WriteString(req.Log, r.stdout+r.stderr)
	}
	return adapter.Answer{Stdout: r.stdout, Stderr: r.stderr, Text: r.stdout, ExitCode: r.exit}, r.err
}

func (f *fakeCLIs) check(_ context.Context, spec adapter.Spec, _ string, _ bool) adapter.Health {
	if f.missing[spec.Name] {
		return adapter.Health{State: adapter.StateMissing, Message: adapter.MsgMissing}
	}
	return adapter.Health{State: adapter.StateHealthy, Message: adapter.MsgInstalled}
}

func (f *fakeCLIs) callsOf(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.adapter == name {
			n++
		}
	}
	return n
}

func (f *fakeCLIs) deps(diff string) deps {
	return deps{
		diff: func(context.Context, string, gate.DiffSpec, git.Scope) (git.ReviewDiff, error) {
			return git.ReviewDiff{Text: diff}, nil
		},
		invoke: f.invoke,
		check:  f.check,
		now:    time.Now,
	}
}

// testDiff adds lines 2 and 3 of src/a.go.
const testDiff = `diff --git a/src/a.go b/src/a.go
--- a/src/a.go
+++ b/src/a.go
@@ -1,2 +1,4 @@
 package a
+var x = 1
+var y = 2
 var z = 3
`

// setup returns a review job and the env of run 1.
func setup(t *testing.T, prefs []string, n int, parallel bool) (gate.Job, gate.Env) {
	t.Helper()
	root := t.TempDir()
	logDir := filepath.Join(root, "gauntlet_logs")
	// A work tree (as every run's is): the record of written files lets a
	// run write its log of the same number again.
	if err := errors.Join(os.Mkdir(filepath.Join(root, ".git"), 0o755), os.Mkdir(logDir, 0o755)); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Root: root, CLI: config.CLI{DefaultPreference: prefs}, RerunNewIssueThreshold: config.PriorityHigh}
	job := gate.Job{
		ID: gate.ReviewID(".", "quality"), Kind: gate.KindReview, Name: "quality", EntryPoint: ".", Parallel: parallel,
		Review: &config.Review{Name: "quality", Prompt: "Review the change for bugs.", CLIPreference: prefs, NumReviews: n, Parallel: parallel},
	}
	env := gate.Env{Root: root, LogDir: logDir, Names: testJobs, RunNumber: 1, Config: cfg, Console: io.Discard,
		Diff: gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "origin/main"}}
	return job, env
}

// nextRun returns env for the following run in verification mode.
func nextRun(t *testing.T, env gate.Env) gate.Env {
	t.Helper()
	env.Previous = loadPending(t, env.LogDir, "")
	env.RunNumber++
	return env
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func slotLabels(r gate.Result) []string {
	var out []string
	for _, s := range r.Slots {
		out = append(out, s.Adapter+"@"+string(rune('0'+s.Index))+":"+string(s.Status))
	}
	return out
}

func TestRunEmptyDiff(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 1, false)
	f := &fakeCLIs{}
	res := newSession(f.deps(" \n")).Run(context.Background(), job, env)
	if res.Status != gate.StatusPass || res.Message != MsgNoChanges || len(f.calls) != 0 {
		t.Fatalf("result = %+v, calls %d", res, len(f.calls))
	}
	if entries, _ := os.ReadDir(env.LogDir); len(entries) != 0 {
		t.Errorf("files written for an empty diff: %v", entries)
	}
}

func TestRunDiffError(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 1, false)
	d := (&fakeCLIs{}).deps("")
	d.diff = func(context.Context, string, gate.DiffSpec, git.Scope) (git.ReviewDiff, error) {
		return git.ReviewDiff{}, errors.New("review diff: base branch missing")
	}
	if res := newSession(d).Run(context.Background(), job, env); res.Status != gate.StatusError || res.Message != "review diff: base branch missing" {
		t.Fatalf("result = %+v", res)
	}
}

func TestRunRoundRobin(t *testing.T) {
	job, env := setup(t, []string{"claude", "gemini", "codex", "vim"}, 3, true)
	f := &fakeCLIs{missing: map[string]bool{"gemini": true}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if res.Status != gate.StatusPass {
		t.Fatalf("result = %+v", res)
	}
	want := []string{"claude@1:pass", "codex@2:pass", "claude@3:pass"}
	if got := slotLabels(res); !reflect.DeepEqual(got, want) {
		t.Errorf("slots = %v, want %v", got, want)
	}
	wantStdin := Stdin(BuildPrompt(job.Review.Prompt, nil), testDiff)
	for _, c := range f.calls {
		if c.stdin != wantStdin {
			t.Errorf("%s stdin = %q, want %q", c.adapter, c.stdin, wantStdin)
		}
	}
	for _, s := range res.Slots {
		log := readFile(t, s.LogPath)
		for _, want := range []string{
			"Starting review: quality", "Entry point: .", "Skipping gemini: Missing", "Skipping vim: unknown review CLI",
			"Dispatching 3 review(s) via round-robin: claude@1, codex@2, claude@3",
			"[START] review:.:quality (" + s.Adapter, "Status: PASS", "Gate result: pass - Passed",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("%s lacks %q:\n%s", s.LogPath, want, log)
			}
		}
		if s.JSONPath != testJobs.SlotJSON(job.ID, s.Adapter, s.Index, 1).Path(env.LogDir) {
			t.Errorf("JSONPath = %q", s.JSONPath)
		}
	}
	for _, s := range res.Slots {
		if s.Duration <= 0 || s.Duration > res.Duration {
			t.Errorf("slot %d duration %s (gate %s)", s.Index, s.Duration, res.Duration)
		}
	}
	if filepath.Base(res.Slots[1].LogPath) != "review_._quality_codex@2.1.log" {
		t.Errorf("log name = %q", filepath.Base(res.Slots[1].LogPath))
	}
}

func TestRunNoHealthy(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 1, false)
	f := &fakeCLIs{missing: map[string]bool{"claude": true, "codex": true}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if res.Status != gate.StatusError || res.Message != "no healthy review CLI available (tried: claude, codex)" {
		t.Fatalf("result = %+v", res)
	}
}

func TestRunUsageLimitFailover(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 2, false)
	f := &fakeCLIs{replies: map[string][]reply{
		"claude": {{stderr: "Claude AI usage limit reached|1760000000\n", exit: 1}},
	}}
	sess := newSession(f.deps(testDiff))
	res := sess.Run(context.Background(), job, env)
	if res.Status != gate.StatusPass {
		t.Fatalf("result = %+v", res)
	}
	if got, want := slotLabels(res), []string{"codex@1:pass", "codex@2:pass"}; !reflect.DeepEqual(got, want) {
		t.Errorf("slots = %v, want %v", got, want)
	}
	if n := f.callsOf("claude"); n != 1 {
		t.Errorf("claude ran %d times, want 1", n)
	}
	claudeLog := readFile(t, testJobs.SlotLog(job.ID, "claude", 1, 1).Path(env.LogDir))
	if !strings.Contains(claudeLog, "Handing review @1 to codex") || !strings.Contains(claudeLog, "out of service for the rest of this run") {
		t.Errorf("claude log:\n%s", claudeLog)
	}
	if _, err := os.Stat(testJobs.SlotJSON(job.ID, "claude", 1, 1).Path(env.LogDir)); !os.IsNotExist(err) {
		t.Errorf("the failed attempt left a JSON (err %v)", err)
	}

	// A later gate of the same run never asks claude again.
	job2 := job
	job2.ID, job2.Name = gate.ReviewID(".", "other"), "other"
	res = sess.Run(context.Background(), job2, env)
	if res.Status != gate.StatusPass || f.callsOf("claude") != 1 {
		t.Fatalf("second gate: %+v, claude calls %d", res, f.callsOf("claude"))
	}
	if log := readFile(t, res.Slots[0].LogPath); !strings.Contains(log, "Skipping claude: Usage limit exceeded") {
		t.Errorf("second gate log:\n%s", log)
	}
}

func TestRunUsageLimitEverywhere(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 2, false)
	f := &fakeCLIs{replies: map[string][]reply{
		"claude": {{stdout: "You are out of usage", exit: 0}},
		"codex":  {{stderr: "Quota exceeded", exit: 1}},
	}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	want := "Error in 2 of 2 review(s): codex@1: no healthy review CLI available (tried: claude, codex)"
	if res.Status != gate.StatusError || res.Message != want || res.ErrorCount != 2 {
		t.Fatalf("result = %+v", res)
	}
	// Slot 2 was assigned codex, which slot 1 took out of service: it is
	// not asked again.
	if f.callsOf("claude") != 1 || f.callsOf("codex") != 1 {
		t.Errorf("calls: claude %d, codex %d", f.callsOf("claude"), f.callsOf("codex"))
	}
	if got := res.Slots[1].Message; got != "no healthy review CLI available (tried: claude, codex)" {
		t.Errorf("slot 2 message = %q", got)
	}
	if log := readFile(t, res.Slots[1].LogPath); !strings.Contains(log, "Error: no healthy review CLI available") {
		t.Errorf("slot 2 log:\n%s", log)
	}
}

func TestRunLimitWordsInARealReview(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 1, false)
	answer := `{"status":"fail","violations":[{"file":"src/a.go","line":2,"issue":"the usage limit is never enforced","priority":"high","status":"new"}]}`
	f := &fakeCLIs{replies: map[string][]reply{"claude": {{stdout: answer}}}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if res.Status != gate.StatusFail || res.Slots[0].Adapter != "claude" || f.callsOf("codex") != 0 {
		t.Fatalf("a review mentioning a usage limit caused a failover: %+v", res)
	}
}

func TestRunFailureWritesJSON(t *testing.T) {
	job, env := setup(t, []string{"codex"}, 1, false)
	answer := "Review done.\n```json\n" + `{"status":"fail","violations":[` +
		`{"file":"src/a.go","line":2,"issue":"x is unused","fix":"remove x","priority":"high","status":"new"},` +
		`{"file":"src/a.go","line":1,"issue":"context line","priority":"high","status":"new"},` +
		`{"file":"src/a.go","issue":"no line","priority":"low"}]}` + "\n```\n"
	f := &fakeCLIs{replies: map[string][]reply{"codex": {{stdout: answer}}}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if res.Status != gate.StatusFail || res.Message != "Found 1 violation(s)" || res.ErrorCount != 1 {
		t.Fatalf("result = %+v", res)
	}
	s := res.Slots[0]
	if len(s.Open) != 1 || s.Open[0].Issue != "x is unused" || s.Open[0].Status != gate.ViolationNew {
		t.Errorf("open violations = %+v", s.Open)
	}
	var file SlotFile
	if err := json.Unmarshal([]byte(readFile(t, s.JSONPath)), &file); err != nil {
		t.Fatal(err)
	}
	if file.Adapter != "codex" || file.Status != gate.StatusFail || file.RawOutput != answer || len(file.Violations) != 1 || file.Violations[0].Issue != "x is unused" {
		t.Errorf("JSON = %+v", file)
	}
	if _, err := time.Parse(timestampFormat, file.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", file.Timestamp, err)
	}
	log := readFile(t, s.LogPath)
	for _, want := range []string{
		"Review: " + s.JSONPath, "1. src/a.go:2 - x is unused", "   Fix: remove x",
		"Note: 1 out-of-scope violation(s) filtered", "Warning: dropped violation 3, missing or invalid line",
		"Review result (codex@1): fail - Found 1 violation(s)", "Gate result: fail - Found 1 violation(s)",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !stampRE().MatchString(line) {
			t.Errorf("log line without a timestamp: %q", line)
		}
	}
}

func TestRunMalformedAnswerIsAnError(t *testing.T) {
	job, env := setup(t, []string{"gemini"}, 1, false)
	f := &fakeCLIs{replies: map[string][]reply{"gemini": {{stdout: "I am not sure what you mean."}}}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if res.Status != gate.StatusError || res.Message != "no JSON object found in the reviewer output" || res.ErrorCount != 1 {
		t.Fatalf("result = %+v", res)
	}
	if log := readFile(t, res.Slots[0].LogPath); !strings.Contains(log, "I am not sure what you mean.") {
		t.Errorf("raw output not in the log:\n%s", log)
	}
}

func TestRunVerification(t *testing.T) {
	failing := `{"status":"fail","violations":[{"file":"src/a.go","line":2,"issue":"x is unused","fix":"remove x","priority":"high","status":"new"}]}`
	for _, tt := range []struct {
		name        string
		edit        string
		wantVerify  bool
		wantFixed   int
		wantSkipped int
		wantMessage string
	}{
		{name: "agent skipped", edit: "skipped", wantSkipped: 1, wantMessage: "No problems found (1 violation(s) skipped by the agent)"},
		{name: "agent fixed", edit: "fixed", wantVerify: true, wantFixed: 1, wantMessage: "No problems found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			job, env := setup(t, []string{"claude"}, 1, false)
			f := &fakeCLIs{replies: map[string][]reply{"claude": {{stdout: failing}, {stdout: standin.PassAnswer}}}}
			d := f.deps(testDiff)
			first := newSession(d).Run(context.Background(), job, env)
			if first.Status != gate.StatusFail {
				t.Fatalf("first run = %+v", first)
			}
			// The agent edits the JSON as the stop hook tells it to.
			path := first.Slots[0].JSONPath
			edited := strings.Replace(readFile(t, path), `"status": "new"`, `"status": "`+tt.edit+`",
      "result": "done by the agent"`, 1)
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			env2 := nextRun(t, env)
			second := newSession(d).Run(context.Background(), job, env2)
			if second.Status != gate.StatusPass || second.Message != tt.wantMessage {
				t.Fatalf("second run = %+v", second)
			}
			if len(second.Fixed) != tt.wantFixed || len(second.Skipped) != tt.wantSkipped ||
				len(second.Slots[0].Fixed) != tt.wantFixed || len(second.Slots[0].Skipped) != tt.wantSkipped {
				t.Errorf("fixed %v skipped %v", second.Fixed, second.Skipped)
			}
			if tt.wantSkipped > 0 && second.Skipped[0].Result != "done by the agent" {
				t.Errorf("skip reason = %v", second.Skipped[0].Result)
			}
			stdin := f.calls[len(f.calls)-1].stdin
			if got := strings.Contains(stdin, VerifyHeading) && strings.Contains(stdin, "1. src/a.go:2 - x is unused"); got != tt.wantVerify {
				t.Errorf("verify section present = %v, want %v:\n%s", got, tt.wantVerify, stdin)
			}
			if !tt.wantVerify && strings.Contains(stdin, "x is unused") {
				t.Errorf("a skipped violation reached the prompt:\n%s", stdin)
			}
		})
	}
}

func TestRunSkipPassedSlots(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 2, true)
	failing := `{"status":"fail","violations":[{"file":"src/a.go","line":3,"issue":"y","priority":"high","status":"new"}]}`
	// Run 1: @1 (claude) passes, @2 (codex) fails.
	f := &fakeCLIs{replies: map[string][]reply{"codex": {{stdout: failing}, {stdout: standin.PassAnswer}}}}
	d := f.deps(testDiff)
	if res := newSession(d).Run(context.Background(), job, env); res.Status != gate.StatusFail {
		t.Fatalf("run 1 = %+v", res)
	}

	// Run 2: @1 passed before and is skipped; @2 runs (and passes).
	env = nextRun(t, env)
	res := newSession(d).Run(context.Background(), job, env)
	if got, want := slotLabels(res), []string{"claude@1:skipped_prior_pass", "codex@2:pass"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("run 2 slots = %v, want %v", got, want)
	}
	if res.Status != gate.StatusPass || res.Message != "Passed (1 skipped due to prior pass)" || res.Slots[0].PassIteration != 1 {
		t.Errorf("run 2 = %+v", res)
	}
	var skipped SlotFile
	if err := json.Unmarshal([]byte(readFile(t, res.Slots[0].JSONPath)), &skipped); err != nil {
		t.Fatal(err)
	}
	if skipped.Status != gate.StatusSkippedPriorPass || skipped.PassIteration != 1 || skipped.RawOutput != "" {
		t.Errorf("skipped JSON = %+v", skipped)
	}
	if log := readFile(t, res.Slots[1].LogPath); !strings.Contains(log, "Skipping @1: previously passed in iteration 1 (num_reviews > 1)") {
		t.Errorf("run 2 log:\n%s", log)
	}

	// Run 3: every slot passed before: the safety latch runs @1, skips @2.
	// Slot 1's adapter changes (claude is missing now): the pass still counts.
	f.missing = map[string]bool{"claude": true}
	env = nextRun(t, env)
	res = newSession(d).Run(context.Background(), job, env)
	if got, want := slotLabels(res), []string{"codex@1:pass", "codex@2:skipped_prior_pass"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("run 3 slots = %v, want %v", got, want)
	}
	if res.Slots[1].PassIteration != 2 {
		t.Errorf("PassIteration = %d, want 2", res.Slots[1].PassIteration)
	}
	if log := readFile(t, res.Slots[0].LogPath); !strings.Contains(log, "Running @1: safety latch (all slots previously passed)") {
		t.Errorf("run 3 log:\n%s", log)
	}

	// Run 4: @1 was run by the latch, @2 is a skip of a pass in run 2: the
	// pass iteration does not drift to the skip's run.
	env = nextRun(t, env)
	res = newSession(d).Run(context.Background(), job, env)
	if got := slotLabels(res); !reflect.DeepEqual(got, []string{"codex@1:pass", "codex@2:skipped_prior_pass"}) || res.Slots[1].PassIteration != 2 {
		t.Errorf("run 4 = %v, pass iteration %d", got, res.Slots[1].PassIteration)
	}
}

func TestRunFirstRunNeverSkips(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 2, false)
	f := &fakeCLIs{}
	d := f.deps(testDiff)
	newSession(d).Run(context.Background(), job, env)
	env.RunNumber = 2 // logs exist, but env.Previous is nil: not verification
	res := newSession(d).Run(context.Background(), job, env)
	if got := slotLabels(res); !reflect.DeepEqual(got, []string{"claude@1:pass", "claude@2:pass"}) {
		t.Errorf("slots = %v", got)
	}
}

// TestRunStandIns goes through the real adapter invocation.
func TestRunStandIns(t *testing.T) {
	dir := standin.Install(t, "claude", "codex")
	job, env := setup(t, []string{"claude"}, 1, false)
	d := realDeps()
	d.diff = func(context.Context, string, gate.DiffSpec, git.Scope) (git.ReviewDiff, error) {
		return git.ReviewDiff{Text: testDiff}, nil
	}

	t.Run("claude cost in the log", func(t *testing.T) {
		standin.Set(t, dir, "claude", "answer", `{"type":"result","subtype":"success","is_error":false,"result":"{\"status\":\"pass\"}","total_cost_usd":0.0421,"num_turns":2,"usage":{"input_tokens":1200,"output_tokens":350}}`)
		res := newSession(d).Run(context.Background(), job, env)
		if res.Status != gate.StatusPass {
			t.Fatalf("result = %+v", res)
		}
		log := readFile(t, res.Slots[0].LogPath)
		if !strings.Contains(log, "Usage: cost $0.0421, input tokens 1200, output tokens 350, turns 2") {
			t.Errorf("log lacks the usage line:\n%s", log)
		}
		if !strings.Contains(log, `Command: claude -p --allowedTools Read,Glob,Grep --max-turns 10 --output-format json --settings '{"disableAllHooks":true}' --setting-sources user --strict-mcp-config`) {
			t.Errorf("log lacks the command line:\n%s", log)
		}
		if got := standin.Read(t, dir, "claude", "stdin"); got != Stdin(BuildPrompt(job.Review.Prompt, nil), testDiff) {
			t.Errorf("stdin = %q", got)
		}
	})

	t.Run("timeout kills the reviewer", func(t *testing.T) {
		standin.Set(t, dir, "codex", "sleep", "30")
		job := job
		rv := *job.Review
		rv.CLIPreference, rv.Timeout = []string{"codex"}, 500*time.Millisecond
		job.Review = &rv
		env := env
		env.RunNumber = 7
		start := time.Now()
		res := newSession(d).Run(context.Background(), job, env)
		if res.Status != gate.StatusError || res.Message != "codex timed out after 500ms" || !res.TimedOut || !res.Slots[0].TimedOut {
			t.Fatalf("result = %+v", res)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("the timeout did not stop the reviewer")
		}
		if _, err := os.Stat(testJobs.SlotJSON(job.ID, "codex", 1, 7).Path(env.LogDir)); !os.IsNotExist(err) {
			t.Errorf("a timed-out slot wrote a JSON (err %v)", err)
		}
	})
}

// TestRunVerificationAfterASlotError: a run in which the slot crashed does
// not hide the slot's last verdict: the next run still verifies the open
// violation and still reports the agent's skip.
func TestRunVerificationAfterASlotError(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 1, false)
	failing := `{"status":"fail","violations":[` +
		`{"file":"src/a.go","line":2,"issue":"x is unused","priority":"high","status":"new"},` +
		`{"file":"src/a.go","line":3,"issue":"y is odd","priority":"high","status":"new"}]}`
	f := &fakeCLIs{replies: map[string][]reply{"claude": {
		{stdout: failing},
		{stdout: standin.PassAnswer, stderr: "boom\n", exit: 1},
		{stdout: standin.PassAnswer},
	}}}
	d := f.deps(testDiff)
	first := newSession(d).Run(context.Background(), job, env)
	if first.Status != gate.StatusFail {
		t.Fatalf("run 1 = %+v", first)
	}
	path := first.Slots[0].JSONPath
	edited := strings.Replace(readFile(t, path), `"status": "new"`, `"status": "skipped",
      "result": "intended"`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	env = nextRun(t, env)
	if res := newSession(d).Run(context.Background(), job, env); res.Status != gate.StatusError {
		t.Fatalf("run 2 = %+v", res)
	}

	env = nextRun(t, env)
	res := newSession(d).Run(context.Background(), job, env)
	stdin := f.calls[len(f.calls)-1].stdin
	if !strings.Contains(stdin, OpenHeading) || !strings.Contains(stdin, "1. src/a.go:3 - y is odd") {
		t.Errorf("run 3 does not verify the open violation of run 1:\n%s", stdin)
	}
	if strings.Contains(stdin, "x is unused") {
		t.Errorf("a skipped violation reached the prompt:\n%s", stdin)
	}
	if res.Status != gate.StatusPass || len(res.Skipped) != 1 || res.Skipped[0].Result != "intended" || len(res.Fixed) != 1 {
		t.Errorf("run 3 = %+v", res)
	}
}

// TestRunInfrastructure: the gate is an infrastructure error only when it
// could not judge the change for reasons the agent cannot fix.
func TestRunInfrastructure(t *testing.T) {
	failing := `{"status":"fail","violations":[{"file":"src/a.go","line":2,"issue":"x is unused","priority":"high","status":"new"}]}`
	timeout := fmt.Errorf("claude timed out after 1s: %w", proc.ErrTimeout)
	for _, tt := range []struct {
		name    string
		n       int
		missing map[string]bool
		replies map[string][]reply
		diffErr error
		status  gate.Status
		infra   bool
	}{
		{name: "no review CLI available", n: 1, missing: map[string]bool{"claude": true, "codex": true}, status: gate.StatusError, infra: true},
		{name: "every CLI over its usage limit", n: 1, replies: map[string][]reply{
			"claude": {{stderr: "Claude AI usage limit reached|1760000000\n", exit: 1}},
			"codex":  {{stderr: "Quota exceeded", exit: 1}},
		}, status: gate.StatusError, infra: true},
		{name: "timeout", n: 1, replies: map[string][]reply{"claude": {{err: timeout}}}, status: gate.StatusError, infra: true},
		{name: "crash", n: 1, replies: map[string][]reply{"claude": {{stderr: "segfault", exit: 139}}}, status: gate.StatusError, infra: true},
		{name: "failed to start", n: 1, replies: map[string][]reply{"claude": {{err: errors.New("run claude: fork/exec: permission denied"), exit: -1}}}, status: gate.StatusError, infra: true},
		{name: "every slot crashed", n: 2, replies: map[string][]reply{"claude": {{exit: 1}}, "codex": {{exit: 2}}}, status: gate.StatusError, infra: true},
		{name: "invalid JSON", n: 1, replies: map[string][]reply{"claude": {{stdout: "I am not sure what you mean."}}}, status: gate.StatusError, infra: true},
		{name: "fail without violations", n: 1, replies: map[string][]reply{"claude": {{stdout: `{"status":"fail","violations":[]}`}}}, status: gate.StatusError, infra: true},
		{name: "invalid JSON in one slot, crash in the other", n: 2, replies: map[string][]reply{"claude": {{stdout: "{"}}, "codex": {{exit: 1}}}, status: gate.StatusError, infra: true},
		{name: "violations in one slot, crash in the other", n: 2, replies: map[string][]reply{"claude": {{stdout: failing}}, "codex": {{exit: 1}}}, status: gate.StatusError},
		{name: "an object that is no review", n: 1, replies: map[string][]reply{"claude": {{stdout: `{"verdict":"ok"}`}}}, status: gate.StatusError, infra: true},
		{name: "every violation lacks a required field", n: 1, replies: map[string][]reply{"claude": {{stdout: `{"status":"fail","violations":[{"issue":"x"}]}`}}}, status: gate.StatusError, infra: true},
		{name: "no JSON in one slot, violations in the other", n: 2, replies: map[string][]reply{"claude": {{stdout: "no idea"}}, "codex": {{stdout: failing}}}, status: gate.StatusError},
		{name: "diff error (git failing)", n: 1, diffErr: errors.New("review diff: git diff: exit status 128: fatal: bad object"), status: gate.StatusError, infra: true},
		{name: "fail", n: 1, replies: map[string][]reply{"claude": {{stdout: failing}}}, status: gate.StatusFail},
		{name: "pass", n: 2, status: gate.StatusPass},
	} {
		t.Run(tt.name, func(t *testing.T) {
			job, env := setup(t, []string{"claude", "codex"}, tt.n, false)
			f := &fakeCLIs{replies: tt.replies, missing: tt.missing}
			d := f.deps(testDiff)
			if tt.diffErr != nil {
				d.diff = func(context.Context, string, gate.DiffSpec, git.Scope) (git.ReviewDiff, error) {
					return git.ReviewDiff{}, tt.diffErr
				}
			}
			res := newSession(d).Run(context.Background(), job, env)
			if res.Status != tt.status || res.Infrastructure != tt.infra {
				t.Errorf("status %s, infrastructure %v; want %s, %v (%+v)", res.Status, res.Infrastructure, tt.status, tt.infra, res)
			}
		})
	}
}

// TestRunBookLastsOneRun: an adapter taken out of service in one run is
// back in the next run of the same process, even when that run reuses the
// log directory and run number (after a clean): every ExecuteRun starts
// its own Session.
func TestRunBookLastsOneRun(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 1, false)
	f := &fakeCLIs{replies: map[string][]reply{
		"claude": {{stderr: "Claude AI usage limit reached|1760000000\n", exit: 1}, {stdout: standin.PassAnswer}},
	}}
	d := f.deps(testDiff)
	sess := newSession(d)
	if res := sess.Run(context.Background(), job, env); res.Status != gate.StatusPass || res.Slots[0].Adapter != "codex" {
		t.Fatalf("run 1 = %+v", res)
	}
	// The same run: claude stays out of service.
	if res := sess.Run(context.Background(), job, env); res.Slots[0].Adapter != "codex" || f.callsOf("claude") != 1 {
		t.Fatalf("same run: %+v, claude calls %d", res, f.callsOf("claude"))
	}

	// The logs are cleaned and a new run starts: same directory, run 1.
	if err := os.RemoveAll(env.LogDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(env.LogDir, 0o755); err != nil {
		t.Fatal(err)
	}
	res := newSession(d).Run(context.Background(), job, env) // the runner starts a session per run
	if res.Status != gate.StatusPass || res.Slots[0].Adapter != "claude" || f.callsOf("claude") != 2 {
		t.Fatalf("next run: %+v, claude calls %d", res, f.callsOf("claude"))
	}
}

// TestParallelSlotsBounded: the slots of a parallel review run at most
// MaxParallelSlots at a time, and every slot runs.
func TestParallelSlotsBounded(t *testing.T) {
	const n = 3*MaxParallelSlots + 1
	job, env := setup(t, []string{"claude"}, n, true)
	f := &fakeCLIs{}
	d := f.deps(testDiff)
	var mu sync.Mutex
	running, most := 0, 0
	release := make(chan struct{})
	var once sync.Once
	invoke := d.invoke
	d.invoke = func(ctx context.Context, spec adapter.Spec, req adapter.Request) (adapter.Answer, error) {
		mu.Lock()
		running++
		most = max(most, running)
		full := running == MaxParallelSlots
		mu.Unlock()
		if full {
			once.Do(func() { close(release) }) // the bound is reached: let everyone go
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		mu.Lock()
		running--
		mu.Unlock()
		return invoke(ctx, spec, req)
	}
	res := newSession(d).Run(context.Background(), job, env)
	if res.Status != gate.StatusPass || len(res.Slots) != n || f.callsOf("claude") != n {
		t.Fatalf("status %s, %d slots, %d calls: %+v", res.Status, len(res.Slots), f.callsOf("claude"), res)
	}
	if most != MaxParallelSlots {
		t.Errorf("at most %d slots ran at once, want %d", most, MaxParallelSlots)
	}
}

// A path the change set lists in the review's scope that the diff neither
// shows nor names is named, and an empty diff with such a path is no
// "No changes to review": the run says what was not reviewed.
func TestRunNamesListedPathsTheDiffMisses(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 1, false)
	job.Listed = []string{"d1/d2/d3/d4/y.txt"}
	f := &fakeCLIs{}
	res := newSession(f.deps("")).Run(context.Background(), job, env)
	if res.Status != gate.StatusPass || res.Message == MsgNoChanges || len(f.calls) != 0 {
		t.Fatalf("result = %+v, calls %d", res, len(f.calls))
	}
	if len(res.NotShown) != 1 || res.NotShown[0].Path != "d1/d2/d3/d4/y.txt" {
		t.Fatalf("not shown = %v, want d1/d2/d3/d4/y.txt", res.NotShown)
	}

	job.Listed = []string{"src/a.go", "vend/x.txt"}
	f = &fakeCLIs{}
	diff := "diff --git a/src/a.go b/src/a.go\n--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-a\n+b\n"
	res = newSession(f.deps(diff)).Run(context.Background(), job, env)
	if len(res.NotShown) != 1 || res.NotShown[0].Path != "vend/x.txt" {
		t.Fatalf("not shown = %v, want vend/x.txt", res.NotShown)
	}
}

// TestRunSkipKeepsBelowThreshold pins that a slot skipped for a prior pass
// tells again what that pass left out under the rerun threshold: a
// verification run's later runs (another slot failing meanwhile) never
// lose a filtered finding, and the gate's pass is no pass of the content
// (gate.Result.BelowThreshold, which the result cache never records).
func TestRunSkipKeepsBelowThreshold(t *testing.T) {
	job, env := setup(t, []string{"claude", "codex"}, 2, true)
	left := gate.Violation{File: "src/a.go", Line: 3, Issue: "a nit", Priority: "medium", Status: gate.ViolationNew}
	pending := gate.Violation{File: "src/a.go", Line: 2, Issue: "y", Priority: "high", Status: gate.ViolationFixed, Result: "done"}
	env.Previous = &gate.Pending{
		Passed: map[string]map[int]gate.PassedSlot{job.ID: {1: {Adapter: "claude", Run: 1, BelowThreshold: []gate.Violation{left}}}},
		Slots:  map[string]map[int][]gate.Violation{job.ID: {2: {pending}}},
	}
	env.RunNumber = 2
	f := &fakeCLIs{replies: map[string][]reply{"codex": {{stdout: standin.PassAnswer}}}}
	res := newSession(f.deps(testDiff)).Run(context.Background(), job, env)
	if got, want := slotLabels(res), []string{"claude@1:skipped_prior_pass", "codex@2:pass"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("slots = %v, want %v", got, want)
	}
	if res.Status != gate.StatusPass || len(res.BelowThreshold) != 1 || res.BelowThreshold[0].File != "src/a.go" {
		t.Fatalf("result %+v: the skipped slot's filtered finding is lost", res)
	}
	if log := readFile(t, res.Slots[0].LogPath); !strings.Contains(log, "Below the rerun threshold, not verified: src/a.go:3 (medium) - a nit") {
		t.Errorf("the skipped slot's log does not list it:\n%s", log)
	}
}
