package report

import (
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// sampleFindings: a new diagnostic, an old one, a failed and a passed
// test, an error line.
var sampleFindings = &findings.Result{Format: "govet", Findings: []findings.Finding{
	{Kind: findings.KindDiagnostic, File: "pkg/a.go", Line: 14, Column: 2, Severity: findings.SeverityError, Message: "unreachable code", Baseline: findings.BaselineNew},
	{Kind: findings.KindDiagnostic, File: "pkg/a.go", Line: 8, Column: 2, Severity: findings.SeverityError, Message: "unreachable code", Baseline: findings.BaselineUnchanged},
	{Kind: findings.KindTest, Suite: "example.com/m", Test: "TestMul", File: "calc_test.go", Line: 18, Status: findings.StatusFailed,
		Severity: findings.SeverityError, Message: "Mul(2, 3) = 7, want 6", Baseline: findings.BaselineNew},
	{Kind: findings.KindTest, Suite: "example.com/m", Test: "TestAdd", Status: findings.StatusPassed, Severity: findings.SeverityNote},
	{Kind: findings.KindLine, Severity: findings.SeverityError, Message: "make: *** [x] Error 1"},
}}

// TestFindingResults: one SARIF result per diagnostic and failed test,
// with its region and baseline state.
func TestFindingResults(t *testing.T) {
	g := runner.GateResult{JobID: "check:.:vet", Kind: "check", Gate: "vet", Status: runner.GateFail, File: ".gauntlet/checks/vet.yml"}
	b := sarifBuilder{r: Run{ProjectDir: "."}, run: sarif.NewRunWithInformationURI(ToolName, ToolURI)}
	if !b.findingResults(g, sampleFindings) {
		t.Fatal("no result added")
	}
	if n := len(b.run.Results); n != 3 {
		t.Fatalf("%d results, want 3", n)
	}
	r := b.run.Results[0]
	reg := r.Locations[0].PhysicalLocation.Region
	if *r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "pkg/a.go" || *reg.StartLine != 14 || *reg.StartColumn != 2 ||
		*r.Level != levelError || *r.BaselineState != "new" || *r.Message.Text != "unreachable code" {
		t.Errorf("result %+v", r)
	}
	if old := b.run.Results[1]; *old.Level != levelNote || *old.BaselineState != "unchanged" {
		t.Errorf("old finding: level %s, state %s", *old.Level, *old.BaselineState)
	}
	if test := b.run.Results[2]; !strings.HasPrefix(*test.Message.Text, "Test example.com/m TestMul failed: Mul(2, 3)") {
		t.Errorf("test result %q", *test.Message.Text)
	}
}

// TestTestCases: one JUnit test case per test the check ran.
func TestTestCases(t *testing.T) {
	g := runner.GateResult{JobID: "check:.:go-test", Kind: "check", Status: runner.GateFail}
	cases := Run{ProjectDir: "."}.testCases(g, sampleFindings)
	if len(cases) != 2 {
		t.Fatalf("cases %+v", cases)
	}
	if c := cases[0]; c.Name != "TestMul" || c.Classname != "check:.:go-test.example.com/m" || c.Failure == nil ||
		c.Failure.Message != "Mul(2, 3) = 7, want 6" || !strings.HasPrefix(c.Failure.Text, "at calc_test.go:18\n") {
		t.Errorf("failed case %+v", c)
	}
	if c := cases[1]; c.Name != "TestAdd" || c.Failure != nil || c.Skipped != nil {
		t.Errorf("passed case %+v", c)
	}
}
