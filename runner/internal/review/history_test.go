package review

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// tsJSON is a review JSON as the TypeScript tool writes it, after the agent
// edited it: one fixed, one skipped, one without status, one with a made-up
// status, and a string line.
const tsJSON = `{
  "adapter": "claude",
  "timestamp": "2026-01-20T10:00:00.000Z",
  "status": "fail",
  "rawOutput": "` + "```json\\n{}\\n```" + `",
  "violations": [
    {"file": "src/a.ts", "line": 10, "issue": "Unchecked error", "fix": "Check it", "priority": "high", "status": "fixed", "result": "Added a guard"},
    {"file": "src/b.ts", "line": "?", "issue": "Odd name", "priority": "low", "status": "skipped", "result": "Not worth it"},
    {"file": "src/c.ts", "line": 3, "issue": "Leak", "priority": "medium"},
    {"file": "src/d.ts", "line": "7", "issue": "Race", "priority": "critical", "status": "done", "extra": true}
  ]
}`

// tsLog is a slot log of the TypeScript tool without a JSON file.
const tsLog = `[2026-01-20T10:00:00.000Z] Starting review: code-quality
Entry point: .
[2026-01-20T10:00:01.000Z] [START] review:.:code-quality (gemini@1)
some streamed output
[2026-01-20T10:00:09.000Z] --- Parsed Result (gemini) ---
Status: FAIL
Review: gauntlet_logs/review_._code-quality_gemini@1.1.json
Violations:
1. src/x.ts:12 - Missing null check
   Fix: Add a guard
2. src/y.ts:? - Unclear naming
---------------------
Review result (gemini@1): fail - Found 2 violations
Result: fail - Failed by 1 adapter(s)
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPendingSlots(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// Slot 1 of code-quality: run 1 failed, run 2 (latest) is the edited TS JSON.
		"review_._code-quality_claude@1.1.json": `{"adapter":"claude","status":"fail","violations":[{"file":"old.go","line":1,"issue":"old","priority":"low"}]}`,
		"review_._code-quality_claude@1.2.json": tsJSON,
		"review_._code-quality_claude@1.2.log":  "log of the same run: the JSON wins\n1. ignored.go:1 - ignored\n",
		// Slot 2: only a legacy log (no JSON).
		"review_._code-quality_gemini@2.2.log": tsLog,
		// Slot 3: passed in its latest run, failed before.
		"review_._code-quality_codex@3.1.json": `{"adapter":"codex","status":"fail","violations":[{"file":"f.go","line":1,"issue":"i","priority":"low"}]}`,
		"review_._code-quality_codex@3.2.json": `{"adapter":"codex","status":"pass","violations":[]}`,
		// Slot 4: skipped for a prior pass.
		"review_._code-quality_codex@4.2.json": `{"adapter":"codex","status":"skipped_prior_pass","violations":[],"passIteration":1}`,
		// Another gate: a fail without violations, and an error.
		"review_src_security_claude@1.1.json": `{"adapter":"claude","status":"fail","violations":[]}`,
		"review_src_security_claude@2.1.json": `{"adapter":"claude","status":"error","violations":[]}`,
		// Check logs: check.Failing reads them, not PendingSlots.
		"check_._lint.1.log": "Result: pass - Command exited with code 0\n",
		"check_._lint.2.log": "Executing command: make lint\n\nResult: fail - Exited with code 2\n",
		"check_._test.2.log": "Result: pass - Command exited with code 0\n",
		// Never read.
		"console.3.log":    "Result: fail - x\n",
		".execution_state": "{}",
		"notes.txt":        "hello",
	})
	if err := os.Mkdir(filepath.Join(dir, "previous"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "previous"), map[string]string{"review_._code-quality_claude@9.9.json": `{"status":"fail"}`})

	prev, warnings := pendingSlots(t, dir, "")
	want := map[string]map[int][]gate.Violation{
		"review:.:code-quality": {
			1: {
				{File: "src/a.ts", Line: 10, Issue: "Unchecked error", Fix: "Check it", Priority: "high", Status: "fixed", Result: "Added a guard"},
				{File: "src/c.ts", Line: 3, Issue: "Leak", Priority: "medium", Status: "new"},
				{File: "src/d.ts", Line: "7", Issue: "Race", Priority: "critical", Status: "new"},
			},
			2: {
				{File: "src/x.ts", Line: 12, Issue: "Missing null check", Fix: "Add a guard", Status: "new"},
				{File: "src/y.ts", Line: "?", Issue: "Unclear naming", Status: "new"},
			},
		},
		"review:src:security": {1: nil},
	}
	if !reflect.DeepEqual(prev, want) {
		t.Errorf("PendingSlots =\n%#v\nwant\n%#v", prev, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `unknown status "done"`) || !strings.Contains(warnings[0], "src/d.ts:7") {
		t.Errorf("warnings = %q", warnings)
	}

	filtered, _ := pendingSlots(t, dir, "security")
	if _, ok := filtered["review:src:security"][1]; len(filtered) != 1 || !ok {
		t.Errorf("PendingSlots(security) = %v", filtered)
	}
	if got, _ := pendingSlots(t, dir, "quality"); len(got) != 0 {
		t.Errorf("a partial gate name matched: %v", got)
	}
}

func TestPendingSlotsMissingDir(t *testing.T) {
	if prev, _ := pendingSlots(t, filepath.Join(t.TempDir(), "nope"), ""); prev == nil || len(prev) != 0 {
		t.Fatalf("PendingSlots(missing) = %v", prev)
	}
}

// testJobs are the jobs of the tests' configurations, named for their
// files.
var testJobs = logdir.NewJobNames("review:.:code-quality", "review:src:security", "review:.:quality",
	"check:.:lint", "check:.:test")

// pendingSlots is PendingSlots over the files of dir, for the jobs of
// gateName ("" for all).
func pendingSlots(t *testing.T, dir, gateName string) (map[string]map[int][]gate.Violation, []string) {
	t.Helper()
	names, err := logdir.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	return PendingSlots(dir, names, testJobs, func(job string) bool { return gateName == "" || gate.IsOfGate(job, gateName) })
}

// loadPending is what the runner passes a verification run's gates, as
// the log directory dir holds it: the pending slots, the slots that
// passed, and the violations the agent skipped in failed slots. (The
// runner reads it from its verdict book; the logs are where these tests
// write it.)
func loadPending(t *testing.T, dir, gateName string) *gate.Pending {
	t.Helper()
	slots, _ := pendingSlots(t, dir, gateName)
	p := &gate.Pending{Slots: slots, Passed: map[string]map[int]gate.PassedSlot{}, Skipped: map[string]map[int][]gate.Violation{}}
	names, err := logdir.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	records, _ := latestVerdicts(slotNames(dir, names, testJobs), 0, nil)
	for job, byIndex := range records {
		for index, r := range byIndex {
			switch {
			case r.passed():
				run := r.Run
				if r.status == gate.StatusSkippedPriorPass && r.passIteration > 0 {
					run = r.passIteration
				}
				if p.Passed[job] == nil {
					p.Passed[job] = map[int]gate.PassedSlot{}
				}
				p.Passed[job][index] = gate.PassedSlot{Adapter: r.adapter, Run: run}
			case r.status == gate.StatusFail:
				for _, v := range r.violations {
					if StatusOf(v) == gate.ViolationSkipped {
						v.Status = gate.ViolationSkipped
						if p.Skipped[job] == nil {
							p.Skipped[job] = map[int][]gate.Violation{}
						}
						p.Skipped[job][index] = append(p.Skipped[job][index], v)
					}
				}
			}
		}
	}
	return p
}

func TestParseLegacyLog(t *testing.T) {
	tests := []struct {
		name   string
		log    string
		status gate.Status
		count  int
	}{
		{"parsed result", tsLog, gate.StatusFail, 2},
		{"pass", "--- Parsed Result (claude) ---\nStatus: PASS\nMessage: ok\n", gate.StatusPass, 0},
		{"gate pass", "[2026-01-20T10:00:00.000Z] Result: pass - Passed\n", gate.StatusPass, 0},
		{"skipped prior pass", "Review skipped\n[2026-01-20T10:00:00.000Z] Status: skipped_prior_pass\n", gate.StatusSkippedPriorPass, 0},
		{"embedded JSON", "--- Review Output (codex) ---\n{\"status\":\"fail\",\"violations\":[{\"file\":\"a\",\"line\":2,\"issue\":\"b\",\"priority\":\"low\"}]}\nError: Found\n", gate.StatusFail, 1},
		{"TypeScript slot error", "Error running codex@1: Command timed out\n", gate.StatusError, 0},
		{"crash with a passing answer streamed", crashLog, gate.StatusError, 0},
		{"no verdict", "[2026-01-20T10:00:00.000Z] [START] review:.:q (claude@1)\nHanding review @1 to codex\n", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, vs := parseLegacyLog(tt.log)
			if status != tt.status || len(vs) != tt.count {
				t.Errorf("parseLegacyLog = %q, %d violations; want %q, %d", status, len(vs), tt.status, tt.count)
			}
		})
	}
}

func TestSlotFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "review_._q_claude@1.1.json")
	in := SlotFile{Adapter: "claude", Timestamp: "2026-01-20T10:00:00.000Z", Status: gate.StatusFail, RawOutput: "<raw & out>",
		Violations: []gate.Violation{{File: "a.go", Line: 3, Issue: "x", Fix: "y", Priority: "high", Status: "new"}}}
	if err := writeSlotFile(path, in); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "adapter": "claude",
  "timestamp": "2026-01-20T10:00:00.000Z",
  "status": "fail",
  "rawOutput": "<raw & out>",
  "violations": [
    {
      "file": "a.go",
      "line": 3,
      "issue": "x",
      "fix": "y",
      "priority": "high",
      "status": "new"
    }
  ]
}
`
	if string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	out, err := readSlotFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip = %+v, want %+v", out, in)
	}
	if err := writeSlotFile(path, SlotFile{Adapter: "codex", Status: gate.StatusSkippedPriorPass, PassIteration: 2}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), `"violations": []`) || !strings.Contains(string(data), `"passIteration": 2`) {
		t.Errorf("skipped slot file = %s", data)
	}
}

// crashLog is the log of a slot whose reviewer exited non-zero after
// printing a passing answer: an error, whatever the streamed output says.
const crashLog = `[2026-01-20T10:00:00.000Z] Starting review: code-quality
[2026-01-20T10:00:01.000Z] [START] review:.:code-quality (claude@1)
[2026-01-20T10:00:02.000Z] {"status":"pass","message":"No problems found"}
[2026-01-20T10:00:02.000Z] --- Parsed Result (claude) ---
[2026-01-20T10:00:02.000Z] Status: error
[2026-01-20T10:00:02.000Z] Error: process exited with code 1
[2026-01-20T10:00:02.000Z] ---------------------
[2026-01-20T10:00:02.000Z] Review result (claude@1): error - process exited with code 1
[2026-01-20T10:00:02.000Z] Gate result: error - process exited with code 1
`

// TestPendingSlotsPassesOverErrors: per slot, the newest run that reached
// a verdict counts; runs in which the slot errored (a log without a JSON,
// a JSON with status error) are passed over, so they neither wipe pending
// violations nor turn a crash's streamed output into a verdict.
func TestPendingSlotsPassesOverErrors(t *testing.T) {
	dir := t.TempDir()
	failRun1 := `{"adapter":"claude","status":"fail","violations":[` +
		`{"file":"src/new.txt","line":1,"issue":"bad line","priority":"high","status":"new"},` +
		`{"file":"src/new.txt","line":2,"issue":"odd","priority":"low","status":"skipped","result":"fine"}]}`
	writeFiles(t, dir, map[string]string{
		// Slot 1: failed in run 1, crashed in run 2 (log only), answered
		// something invalid in run 3 (JSON with status error).
		"review_._code-quality_claude@1.1.json": failRun1,
		"review_._code-quality_claude@1.1.log":  "Status: FAIL\n",
		"review_._code-quality_claude@1.2.log":  crashLog,
		"review_._code-quality_claude@1.3.json": `{"adapter":"claude","status":"error","rawOutput":"{\"status\":\"fail\",\"violations\":[]}","violations":[]}`,
		"review_._code-quality_claude@1.3.log":  "--- Review Output (claude) ---\n{\"status\":\"fail\",\"violations\":[]}\nReview result (claude@1): error - reviewer answered \"fail\" without any violation\n",
		// Slot 2: failed in run 1, passed in run 2, crashed in run 3: the pass stands.
		"review_._code-quality_codex@2.1.json": `{"adapter":"codex","status":"fail","violations":[{"file":"f.go","line":1,"issue":"i","priority":"low"}]}`,
		"review_._code-quality_codex@2.2.json": `{"adapter":"codex","status":"pass","violations":[]}`,
		"review_._code-quality_codex@2.3.log":  strings.ReplaceAll(crashLog, "claude", "codex"),
		// Slot 3: a TypeScript log that failed, then a TypeScript slot error.
		"review_._code-quality_gemini@3.1.log": tsLog,
		"review_._code-quality_gemini@3.2.log": "[2026-01-20T10:00:00.000Z] Error running gemini@3: Command timed out\n",
		// Slot 4: only errors: nothing pending.
		"review_._code-quality_claude@4.1.log": strings.ReplaceAll(crashLog, "@1", "@4"),
	})
	prev, warnings := pendingSlots(t, dir, "")
	want := map[string]map[int][]gate.Violation{
		"review:.:code-quality": {
			1: {{File: "src/new.txt", Line: 1, Issue: "bad line", Priority: "high", Status: "new"}},
			3: {
				{File: "src/x.ts", Line: 12, Issue: "Missing null check", Fix: "Add a guard", Status: "new"},
				{File: "src/y.ts", Line: "?", Issue: "Unclear naming", Status: "new"},
			},
		},
	}
	if !reflect.DeepEqual(prev, want) {
		t.Errorf("PendingSlots =\n%#v\nwant\n%#v", prev, want)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestJudged(t *testing.T) {
	dir := t.TempDir()
	pass := func(adapter string) string { return `{"adapter":"` + adapter + `","status":"pass","violations":[]}` }
	writeFiles(t, dir, map[string]string{
		// code-quality: slot 1 skipped for its prior pass in run 3, slot 2
		// answered in run 3: judged run 3.
		"review_._code-quality_claude@1.2.json": pass("claude"),
		"review_._code-quality_claude@1.3.json": `{"adapter":"claude","status":"skipped_prior_pass","passIteration":2,"violations":[]}`,
		"review_._code-quality_codex@2.3.json":  `{"adapter":"codex","status":"fail","violations":[{"file":"f.go","line":1,"issue":"i","priority":"low"}]}`,
		// security: passed in run 2, crashed in run 3: it did not judge run 3.
		"review_src_security_claude@1.2.json": pass("claude"),
		"review_src_security_claude@1.3.log":  crashLog,
		// quality: only skipped in run 3.
		"review_._quality_claude@1.1.json": pass("claude"),
		"review_._quality_claude@1.3.json": `{"adapter":"claude","status":"skipped_prior_pass","passIteration":1,"violations":[]}`,
	})
	names, err := logdir.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run  int
		want map[string]bool
	}{
		{3, map[string]bool{"review:.:code-quality": true}},
		{2, map[string]bool{"review:.:code-quality": true, "review:src:security": true}},
		{1, map[string]bool{"review:.:quality": true}},
		{0, map[string]bool{}},
	} {
		if got := Judged(dir, names, testJobs, tt.run); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Judged(run %d) = %v, want %v", tt.run, got, tt.want)
		}
	}
}
