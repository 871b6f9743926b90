package report

import (
	"fmt"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// gateFindings are what a check's output reported, as the run read them;
// nil when it was not read.
func gateFindings(g runner.GateResult) *findings.Result { return g.Findings }

// sarifLevels maps a finding's severity to its SARIF level.
var sarifLevels = map[findings.Severity]string{
	findings.SeverityError: levelError, findings.SeverityWarning: levelWarning, findings.SeverityNote: levelNote,
}

// findingResults adds one SARIF result per diagnostic and per failed test
// of a failed or pre-existing check, at its file and region, with
// baselineState new or unchanged when the base was asked. It reports
// whether it added any.
func (b sarifBuilder) findingResults(g runner.GateResult, r *findings.Result) bool {
	if r == nil {
		return false
	}
	added := false
	for _, f := range r.Findings {
		if f.Kind == findings.KindLine || f.Kind == findings.KindTest && f.Status != findings.StatusFailed || f.File == "" {
			continue
		}
		rule := b.rule(g)
		level := sarifLevels[f.Severity]
		if g.Status == runner.GatePreExisting || f.Baseline == findings.BaselineUnchanged {
			level = levelNote
		}
		text := f.Message
		if f.Kind == findings.KindTest {
			text = fmt.Sprintf("Test %s failed: %s", strings.TrimSpace(f.Suite+" "+f.Test), f.Message)
		}
		if text == "" {
			text = f.Title()
		}
		loc := b.location(f.File, f.Line)
		if f.Column > 0 && f.Line > 0 {
			loc.PhysicalLocation.Region.WithStartColumn(f.Column)
		}
		res := sarif.NewRuleResult(rule).WithLevel(level).WithMessage(sarif.NewTextMessage(text)).
			WithLocations([]*sarif.Location{loc}).
			WithPartialFingerPrints(map[string]interface{}{fingerprintKey: fingerprint(rule, f.File, f.Rule, f.Suite, f.Test, firstLine(f.Message))})
		if f.Baseline != findings.BaselineNone {
			res.WithBaselineState(string(f.Baseline))
		}
		props := map[string]any{"jobId": g.JobID, "entryPoint": g.EntryPoint, "kind": string(f.Kind)}
		if f.Rule != "" {
			props["toolRule"] = f.Rule
		}
		res.AttachPropertyBag(properties(props))
		b.run.AddResult(res)
		added = true
	}
	return added
}

// testCases are the JUnit test cases of a check's tests: one per test it
// ran, named by its suite and name, a failure with its message (skipped,
// saying so, when the base branch fails it too).
func (r Run) testCases(g runner.GateResult, fr *findings.Result) []junitCase {
	if fr == nil {
		return nil
	}
	var out []junitCase
	for _, f := range fr.Findings {
		if f.Kind != findings.KindTest {
			continue
		}
		c := junitCase{Name: f.Test, Classname: g.JobID + "." + f.Suite, Time: seconds(0)}
		if f.File != "" {
			c.File = r.repoPath(f.File)
		}
		if f.Test == "" {
			c.Name = f.Suite
		}
		switch {
		case f.Status == findings.StatusSkipped:
			c.Skipped = &junitMessage{Message: "skipped"}
		case f.Status != findings.StatusFailed:
		case f.Baseline == findings.BaselineUnchanged || g.Status == runner.GatePreExisting:
			c.Skipped = &junitMessage{Message: "fails on the base branch too: not caused by this change"}
			c.SystemOut = &junitText{xmlText(f.Message)}
		default:
			c.Failure = &junitMessage{Message: firstLine(f.Message), Type: "test failed", Text: xmlText(testDetail(f))}
		}
		out = append(out, c)
	}
	return out
}

// testDetail is a failed test's message with its place.
func testDetail(f findings.Finding) string {
	if loc := f.Location(); loc != "" {
		return "at " + loc + "\n" + f.Message
	}
	return f.Message
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
