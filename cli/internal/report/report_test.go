package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/report/reporttest"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// scenario is a run whose reports the tests check.
type scenario struct {
	name string
	run  Run
	// results is how many SARIF results the run gives, suppressed how many
	// of them are suppressed, notifications how many tool execution
	// notifications.
	results, suppressed, notifications int
	// failures and errors count the JUnit test cases failed and erred.
	failures, errors int
}

// scenarios covers the outcomes: gates passing, failing, timed out, erring,
// review violations open, fixed and skipped, and runs without gates.
func scenarios(t *testing.T) []scenario {
	dir := t.TempDir()
	failLog := filepath.Join(dir, "check_src_lint.1.log")
	var log strings.Builder
	for i := range 200 {
		log.WriteString("line " + strings.Repeat("x", i%7) + "\n")
	}
	log.WriteString("\x1b[31mlint: src/a.go:3: unused x\x1b[0m \x07]]>\nResult: fail - Exited with code 1\n")
	if err := os.WriteFile(failLog, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "project")
	base := runner.RunResult{Root: root, Base: "main", RunNumber: 1, ChangesListed: true, ChangedFiles: 2,
		ConsoleLogPath: filepath.Join(dir, "console.1.log")}
	passCheck := runner.GateResult{JobID: "check:src:test", Kind: "check", Gate: "test", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/checks/test.yml", Status: runner.GatePass, Message: "Command exited with code 0",
		Duration: 1500 * time.Millisecond, LogPath: filepath.Join(dir, "check_src_test.1.log"), Exited: true}
	failCheck := runner.GateResult{JobID: "check:src:lint", Kind: "check", Gate: "lint", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/checks/lint.yml", Status: runner.GateFail, Message: "Exited with code 1", Duration: time.Second,
		LogPath: failLog, Exited: true, ExitCode: 1, Open: 1}
	slowCheck := runner.GateResult{JobID: "check:src:slow", Kind: "check", Gate: "slow", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/checks/slow.yml", Status: runner.GateFail, Message: "Timed out after 1s", Duration: time.Second,
		LogPath: filepath.Join(dir, "missing.log"), TimedOut: true, Timeout: time.Second, Open: 1}
	review := runner.GateResult{JobID: "review:src:quality", Kind: "review", Gate: "quality", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/reviews/quality.md", Status: runner.GateFail, Message: "Found 1 violation(s)", Duration: 2 * time.Second, Open: 1,
		Slots: []runner.SlotResult{{Adapter: "claude", Index: 1, Status: runner.GateFail, Message: "Found 1 violation(s)",
			LogPath: filepath.Join(dir, "review_src_quality_claude@1.1.log"), JSONPath: filepath.Join(dir, "review_src_quality_claude@1.1.json"),
			Violations: []runner.Violation{
				{File: "src/new file.txt", Line: 1, Issue: "bad line", Fix: "remove it", Priority: "high", Status: runner.ViolationNew},
				{File: "src/a.txt", Line: 2, Issue: "old bug", Priority: "medium", Status: runner.ViolationFixed},
				{File: "src/b.txt", Issue: "style", Priority: "low", Status: runner.ViolationSkipped, Result: "subjective"},
			}}}}
	reviewError := runner.GateResult{JobID: "review:src:security", Kind: "review", Gate: "security", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/reviews/security.md", Status: runner.GateError, Message: "codex timed out after 1s", TimedOut: true,
		Timeout: time.Second, Infrastructure: true, Open: 1,
		Slots: []runner.SlotResult{{Adapter: "codex", Index: 1, Status: runner.GateError, Message: "codex timed out after 1s", TimedOut: true}}}
	preCheck := runner.GateResult{JobID: "check:src:vet", Kind: "check", Gate: "vet", EntryPoint: "src", WorkingDir: "src",
		File: ".gauntlet/checks/vet.yml", Status: runner.GatePreExisting, Duration: time.Second, LogPath: failLog, Exited: true, ExitCode: 1,
		Message:  "Exited with code 1, as on the base branch (merge base 0123456789ab): pre-existing, not caused by this change",
		Baseline: &runner.BaselineResult{Commit: "0123456789abcdef", PreExisting: true, Reason: "the base exits with code 1 too and prints every one of its 1 error lines"}}
	newCheck := failCheck
	newCheck.Message = "Exited with code 1; new, not on the base branch (merge base 0123456789ab): 1 of its 1 error lines is new: the base does not print it"
	newCheck.Baseline = &runner.BaselineResult{Commit: "0123456789abcdef", Reason: "1 of its 1 error lines is new: the base does not print it",
		NewLines: []string{"lint: src/a.go:N: unused x"}}
	cachedCheck := passCheck
	cachedCheck.Duration = 0
	cachedCheck.Cached = &runner.CachedFrom{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Run: 3,
		Root: filepath.Join(dir, "other worktree"), ConsoleLog: filepath.Join(dir, "previous", "console.3.log")}
	with := func(status runner.GauntletStatus, gates ...runner.GateResult) runner.RunResult {
		r := base
		r.Status, r.Message, r.Gates, r.GatesRun = status, runner.Message(status, ""), gates, len(gates)
		for _, g := range gates {
			switch g.Status {
			case runner.GateFail, runner.GateError:
				r.GatesFailed++
			case runner.GatePreExisting:
				r.PreExisting++
			}
		}
		return r
	}
	noRun := func(status runner.GauntletStatus, errMsg string) runner.RunResult {
		r := runner.RunResult{Status: status, Message: runner.Message(status, errMsg), ErrorMessage: errMsg}
		if status != runner.StatusNoConfig {
			r.Root, r.Base = root, "main"
		}
		return r
	}
	noChanges := noRun(runner.StatusNoChanges, "")
	noChanges.ChangesListed = true
	run := func(r runner.RunResult, exit int) Run {
		return Run{Command: "run", Version: "v1.2.3", Result: r, ExitCode: exit, TopLevel: dir, ProjectDir: "project"}
	}
	return []scenario{
		{name: "passed", run: run(with(runner.StatusPassed, passCheck), 0)},
		{name: "failed check", run: run(with(runner.StatusFailed, passCheck, failCheck), 1), results: 1, failures: 1},
		{name: "pre-existing check", run: run(with(runner.StatusPassed, passCheck, preCheck), 0), results: 1},
		{name: "new failure beside a pre-existing one", run: run(with(runner.StatusFailed, newCheck, preCheck), 1), results: 2, failures: 1},
		{name: "timed-out check", run: run(with(runner.StatusFailed, slowCheck), 1), results: 1, failures: 1},
		{name: "review violations", run: run(with(runner.StatusFailed, review), 1), results: 2, suppressed: 1, failures: 1},
		{name: "reviewer timed out", run: run(with(runner.StatusInfrastructureError, reviewError), 1), notifications: 1, errors: 1},
		{name: "no changes", run: run(noChanges, 0)},
		{name: "no config", run: Run{Command: "check", Version: "dev", Result: noRun(runner.StatusNoConfig, "no .gauntlet/config.yml found"), ExitCode: 2},
			notifications: 1, errors: 1},
		{name: "config error", run: run(noRun(runner.StatusError, ".gauntlet/checks/lint.yml: timeout: must be a positive number"), 2),
			notifications: 1, errors: 1},
		{name: "retry limit", run: run(noRun(runner.StatusRetryLimitExceeded, "Retry limit exceeded: run 5 exceeds max allowed 4"), 1),
			notifications: 1, errors: 1},
		{name: "lock", run: run(noRun(runner.StatusLockExists, "a run is in progress"), 1), notifications: 1, errors: 1},
		{name: "cached", run: run(with(runner.StatusPassed, cachedCheck), 0)},
	}
}

func TestJSON(t *testing.T) {
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJSON(&b, s.run); err != nil {
				t.Fatal(err)
			}
			if err := reporttest.ValidateJSON(b.Bytes()); err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			var d Document
			if err := json.Unmarshal(b.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			res := s.run.Result
			for i, g := range d.Gates {
				if c := res.Gates[i].Cached; (g.Cached == nil) != (c == nil) || c != nil && (g.Cached.Run != c.Run || g.Cached.ProjectRoot != c.Root) {
					t.Errorf("gate %s: cached %+v, want %+v", g.ID, g.Cached, c)
				}
			}
			if d.Status != res.Status || d.ExitCode != s.run.ExitCode || len(d.Gates) != len(res.Gates) ||
				(d.Run == nil) != (res.RunNumber == 0) || (d.ChangedFiles == nil) != !res.ChangesListed ||
				(d.Error == nil) != (res.ErrorMessage == "") || (d.ProjectRoot == nil) != (res.Root == "") {
				t.Errorf("document %+v", d)
			}
		})
	}
}

func TestJSONGateFields(t *testing.T) {
	all := scenarios(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, all[byName(all, "timed-out check")].run); err != nil {
		t.Fatal(err)
	}
	var d Document
	_ = json.Unmarshal(b.Bytes(), &d)
	g := d.Gates[0]
	if !g.TimedOut || g.ExitCode != nil || g.TimeoutSeconds == nil || *g.TimeoutSeconds != 1 || g.Log == nil {
		t.Errorf("timed-out check %+v", g)
	}
	b.Reset()
	if err := WriteJSON(&b, all[byName(all, "review violations")].run); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b.Bytes(), &d)
	g = d.Gates[0]
	var statuses []string
	for _, v := range g.Violations {
		statuses = append(statuses, string(v.Status))
	}
	if g.Log != nil || len(g.Slots) != 1 || g.Slots[0].ReviewJSON == nil || strings.Join(statuses, ",") != "new,fixed,skipped" ||
		*g.Violations[0].Line != 1 || *g.Violations[0].Fix != "remove it" || g.Violations[2].Line != nil ||
		*g.Violations[2].Result != "subjective" || g.Violations[0].Adapter != "claude" || g.Violations[0].Slot != 1 {
		t.Errorf("review %+v", g)
	}
}

func TestJUnit(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			data, err := JUnit(s.run, now)
			if err != nil {
				t.Fatal(err)
			}
			suites, err := reporttest.ValidateJUnit(data)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if suites.Failures != s.failures || suites.Errors != s.errors {
				t.Errorf("failures %d, errors %d; want %d, %d\n%s", suites.Failures, suites.Errors, s.failures, s.errors, data)
			}
			if (suites.Failures+suites.Errors > 0) != (s.run.ExitCode != 0) {
				t.Errorf("the file fails %v, the command exited %d", suites.Failures+suites.Errors > 0, s.run.ExitCode)
			}
			gates := len(s.run.Result.Gates)
			if n := len(suites.Suites[0].Cases); n != gates && n != gates+1 {
				t.Errorf("%d test cases for %d gates", n, gates)
			}
		})
	}
}

func TestJUnitFailureText(t *testing.T) {
	all := scenarios(t)
	data, err := JUnit(all[byName(all, "failed check")].run, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	suites, _ := reporttest.ValidateJUnit(data)
	c := suites.Suites[0].Cases[1]
	if c.Name != "check:src:lint" || c.Classname != "agent-gauntlet.check" || c.Failure == nil || c.Failure.Message != "Exited with code 1" ||
		!strings.Contains(c.Failure.Text, "lint: src/a.go:3: unused x \uFFFD]]>\nResult: fail - Exited with code 1") ||
		strings.Contains(c.Failure.Text, "\x1b") || strings.Count(c.Failure.Text, "\n") > tailLines+3 {
		t.Errorf("failing case %+v", c)
	}
	data, _ = JUnit(all[byName(all, "review violations")].run, time.Now())
	suites, _ = reporttest.ValidateJUnit(data)
	text := suites.Suites[0].Cases[0].Failure.Text
	for _, want := range []string{"[new] src/new file.txt:1 high: bad line\n    Fix: remove it", "[fixed] src/a.txt:2 medium: old bug", "[skipped] src/b.txt low: style\n    Result: subjective"} {
		if !strings.Contains(text, want) {
			t.Errorf("review failure lacks %q:\n%s", want, text)
		}
	}
}

func TestSARIF(t *testing.T) {
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			data, err := SARIF(s.run)
			if err != nil {
				t.Fatal(err)
			}
			if err := reporttest.ValidateSARIF(data); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			results, run, err := reporttest.SARIFResults(data)
			if err != nil {
				t.Fatal(err)
			}
			suppressed := 0
			for _, r := range results {
				if len(r.Suppressions) > 0 {
					suppressed++
				}
				if *r.Locations[0].PhysicalLocation.ArtifactLocation.URIBaseId != SrcRoot {
					t.Errorf("result without %s: %+v", SrcRoot, r.Locations[0])
				}
			}
			inv := run.Invocations[0]
			if len(results) != s.results || suppressed != s.suppressed || len(inv.ToolExecutionNotifications) != s.notifications {
				t.Errorf("%d results (%d suppressed), %d notifications\n%s", len(results), suppressed, len(inv.ToolExecutionNotifications), data)
			}
			if *inv.ExitCode != s.run.ExitCode || *inv.ExecutionSuccessful != (s.notifications == 0) {
				t.Errorf("invocation %+v", inv)
			}
		})
	}
}

func TestSARIFResults(t *testing.T) {
	all := scenarios(t)
	data, _ := SARIF(all[byName(all, "review violations")].run)
	results, run, _ := reporttest.SARIFResults(data)
	open, skipped := results[0], results[1]
	loc := open.Locations[0].PhysicalLocation
	if *open.RuleID != "review/quality" || *open.Level != "error" || *open.Message.Text != "bad line\nFix: remove it" ||
		*loc.ArtifactLocation.URI != "project/src/new%20file.txt" || *loc.Region.StartLine != 1 {
		t.Errorf("open violation %+v at %+v", open, loc)
	}
	if *skipped.Level != "note" || *skipped.Suppressions[0].Justification != "subjective" || skipped.Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("skipped violation %+v", skipped)
	}
	if base := run.OriginalUriBaseIDs[SrcRoot]; base == nil || !strings.HasPrefix(*base.URI, "file:///") || !strings.HasSuffix(*base.URI, "/") {
		t.Errorf("originalUriBaseIds %+v", run.OriginalUriBaseIDs)
	}
	data, _ = SARIF(all[byName(all, "failed check")].run)
	results, run, _ = reporttest.SARIFResults(data)
	check := results[0]
	if *check.RuleID != "check/lint" || *check.Level != "error" ||
		*check.Locations[0].PhysicalLocation.ArtifactLocation.URI != "project/.gauntlet/checks/lint.yml" ||
		!strings.Contains(*check.Message.Text, "Check lint failed on src: Exited with code 1") ||
		!strings.Contains(*check.Message.Text, "lint: src/a.go:3: unused x") || len(run.Tool.Driver.Rules) != 1 {
		t.Errorf("check result %+v", check)
	}
	// The fingerprint of an alert does not move with its line.
	moved := all[byName(all, "review violations")].run
	moved.Result.Gates = slices.Clone(moved.Result.Gates)
	moved.Result.Gates[0].Slots = []runner.SlotResult{moved.Result.Gates[0].Slots[0]}
	moved.Result.Gates[0].Slots[0].Violations = []runner.Violation{moved.Result.Gates[0].Slots[0].Violations[0]}
	moved.Result.Gates[0].Slots[0].Violations[0].Line = 9
	data, _ = SARIF(moved)
	again, _, _ := reporttest.SARIFResults(data)
	if again[0].PartialFingerprints[fingerprintKey] != open.PartialFingerprints[fingerprintKey] {
		t.Errorf("fingerprint changed with the line")
	}
}

// A suppression's GUID has the form the SARIF schema wants, whatever the
// fingerprint.
func TestGUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	for i := range 64 {
		fp := fingerprint(strconv.Itoa(i))
		if g := guid(fp); !re.MatchString(g) {
			t.Errorf("guid(%s) = %s", fp, g)
		}
	}
}

// Every gate status has its JUnit and SARIF outcome, every priority its
// level: adding a status or a priority without deciding fails here.
func TestOutcomesCoverStatuses(t *testing.T) {
	for _, s := range runner.GateStatuses {
		if _, ok := junitOutcomes[s]; !ok {
			t.Errorf("gate status %s has no JUnit outcome", s)
		}
		if _, ok := sarifOutcomes[s]; !ok {
			t.Errorf("gate status %s has no SARIF outcome", s)
		}
	}
	for _, p := range config.Priorities {
		if priorityLevels[p] == "" {
			t.Errorf("priority %s has no SARIF level", p)
		}
	}
}

// The schema's enums are the program's: a status added in Go fails here
// until the schema lists it.
func TestSchemaEnums(t *testing.T) {
	p, err := reporttest.ReportSchemaPath()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []any `json:"enum"`
		} `json:"properties"`
		Defs map[string]struct {
			Enum       []string `json:"enum"`
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	strs := func(xs any) []string {
		var out []string
		b, _ := json.Marshal(xs)
		_ = json.Unmarshal(b, &out)
		slices.Sort(out)
		return out
	}
	// Statuses only the stop hook answers with.
	hookOnly := []runner.GauntletStatus{runner.StatusIntervalNotElapsed, runner.StatusStopHookActive, runner.StatusStopHookDisabled, runner.StatusInvalidInput}
	var runStatuses []runner.GauntletStatus
	for _, s := range runner.AllStatuses {
		if !slices.Contains(hookOnly, s) {
			runStatuses = append(runStatuses, s)
		}
	}
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"status", strs(schema.Properties["status"].Enum), strs(runStatuses)},
		{"gate_status", strs(schema.Defs["gate_status"].Enum), strs(runner.GateStatuses)},
		{"slot_status", strs(schema.Defs["slot_status"].Enum), strs(runner.SlotStatuses)},
		{"violation_status", strs(schema.Defs["violation_status"].Enum), strs(runner.ViolationStatuses)},
		{"kind", strs(schema.Defs["gate"].Properties["kind"].Enum), strs([]string{runner.KindCheck, runner.KindReview})},
		{"priority", strs(schema.Defs["violation"].Properties["priority"].Enum), strs(config.Priorities)},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("schema %s enum %v, the program's %v", tt.name, tt.got, tt.want)
		}
	}
}

// The example document of docs/reports.md is valid against the schema.
func TestReportsDocExample(t *testing.T) {
	p, err := reporttest.ReportSchemaPath()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(filepath.Dir(p), "reports.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc), "```json\n{\n  \"schema_version\"")
	if start < 0 {
		t.Fatal("docs/reports.md has no example JSON report")
	}
	body := string(doc)[start+len("```json\n"):]
	body = body[:strings.Index(body, "```")]
	if err := reporttest.ValidateJSON([]byte(body)); err != nil {
		t.Fatalf("docs/reports.md example: %v", err)
	}
}

// byName is the index of the scenario named name.
func byName(all []scenario, name string) int {
	for i, s := range all {
		if s.name == name {
			return i
		}
	}
	panic("no scenario " + name)
}

// A check failing as on the base branch is reported apart in every
// format: counted in totals.pre_existing with its baseline in JSON, a
// skipped test case carrying its message and log in JUnit, a note with
// baselineState "unchanged" in SARIF; a new failure carries the error lines
// the base does not print.
func TestPreExistingReports(t *testing.T) {
	all := scenarios(t)
	r := all[byName(all, "new failure beside a pre-existing one")].run
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var d Document
	_ = json.Unmarshal(b.Bytes(), &d)
	newG, pre := d.Gates[0], d.Gates[1]
	if d.Totals.Failed != 1 || d.Totals.PreExisting != 1 || pre.Status != runner.GatePreExisting || pre.Baseline == nil ||
		!pre.Baseline.PreExisting || *pre.Baseline.Commit != "0123456789abcdef" || len(pre.Baseline.NewLines) != 0 ||
		newG.Baseline == nil || newG.Baseline.PreExisting || strings.Join(newG.Baseline.NewLines, "|") != "lint: src/a.go:N: unused x" {
		t.Errorf("JSON:\n%s", b.String())
	}
	passed := all[byName(all, "passed")].run
	b.Reset()
	_ = WriteJSON(&b, passed)
	if !strings.Contains(b.String(), `"baseline": null`) {
		t.Errorf("a gate without a baseline does not say null:\n%s", b.String())
	}

	data, _ := JUnit(r, time.Now())
	suites, err := reporttest.ValidateJUnit(data)
	if err != nil {
		t.Fatal(err)
	}
	c := suites.Suites[0].Cases[1]
	if c.Skipped == nil || !strings.Contains(c.Skipped.Message, "pre-existing, not caused by this change") || c.Failure != nil ||
		suites.Skipped != 1 || suites.Failures != 1 {
		t.Errorf("JUnit:\n%s", data)
	}

	data, _ = SARIF(r)
	results, _, _ := reporttest.SARIFResults(data)
	if len(results) != 2 {
		t.Fatalf("SARIF results:\n%s", data)
	}
	failed, note := results[0], results[1]
	if *failed.Level != "error" || failed.BaselineState != nil {
		t.Errorf("new failure %+v", failed)
	}
	if *note.Level != "note" || note.BaselineState == nil || *note.BaselineState != "unchanged" ||
		!strings.Contains(*note.Message.Text, "Check vet fails as on the base branch, not because of this change, on src: Exited with code 1, as on the base branch") {
		t.Errorf("pre-existing failure %+v: %s", note, *note.Message.Text)
	}
}
