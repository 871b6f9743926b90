package stophook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// excerptOf renders the part of one failed check with findings r, within
// the excerpt's budget.
func excerptOf(r findings.Result) string {
	g := runner.GateResult{JobID: "check:.:lint", Kind: "check", Status: runner.GateFail, Message: "Exited with code 1",
		LogPath: "/p/gauntlet_logs/check_._lint.1.log"}
	p := checkPart(g, g.JobID, &r)
	var b strings.Builder
	for _, l := range p.head {
		b.WriteString(l + "\n")
	}
	for _, l := range cut(p, ExcerptBudget-600) {
		b.WriteString(l + "\n")
	}
	for _, l := range p.foot {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func diag(file string, line int, sev findings.Severity, msg string, b findings.Baseline) findings.Finding {
	return findings.Finding{Kind: findings.KindDiagnostic, File: file, Line: line, Severity: sev, Message: msg, Baseline: b}
}

// TestExcerptFindings: the block shows what is new at its real place with
// its whole message, errors before warnings, repeated findings folded,
// the base's findings apart and never shown, and says how many more are
// in the log whenever any is left out.
func TestExcerptFindings(t *testing.T) {
	t.Run("60 old findings and 1 new", func(t *testing.T) {
		var r findings.Result
		for i := range 60 {
			r.Findings = append(r.Findings, diag("old.go", i+1, findings.SeverityError, "unreachable code", findings.BaselineUnchanged))
		}
		r.Findings = append(r.Findings, diag("new.go", 14, findings.SeverityError, "unreachable code", findings.BaselineNew))
		got := excerptOf(r)
		if !strings.Contains(got, "- new.go:14 error\n    │ unreachable code\n") || strings.Contains(got, "old.go") ||
			!strings.Contains(got, "60 more finding(s) are on the base branch too") {
			t.Errorf("excerpt:\n%s", got)
		}
	})
	t.Run("1 error and 100 warnings", func(t *testing.T) {
		var r findings.Result
		for i := range 100 {
			r.Findings = append(r.Findings, diag("a.js", i+1, findings.SeverityWarning, fmt.Sprintf("Unexpected console statement %d", i), ""))
		}
		r.Findings = append(r.Findings, diag("b.js", 7, findings.SeverityError, "'x' is assigned a value but never used", ""))
		got := excerptOf(r)
		if !strings.Contains(got, "finding(s) to fix (read as ; its log: /p/gauntlet_logs/check_._lint.1.log):\n- b.js:7 error\n") {
			t.Errorf("the error is not first:\n%s", got)
		}
		if !strings.Contains(got, "more finding(s): all are in /p/gauntlet_logs/check_._lint.1.log)") || len(got) > ExcerptBudget {
			t.Errorf("no note of what is left out, or over budget (%d bytes):\n%s", len(got), got)
		}
	})
	t.Run("multi-line message whole, at its line", func(t *testing.T) {
		r := findings.Result{Findings: []findings.Finding{diag("src/itsdangerous/encoding.py", 58, findings.SeverityError,
			"Non-overlapping equality check (left operand type:\n\"bytes\", right operand type: \"str\")", findings.BaselineNew)}}
		r.Findings[0].Rule = "comparison-overlap"
		got := excerptOf(r)
		want := "- src/itsdangerous/encoding.py:58 error [comparison-overlap]\n    │ Non-overlapping equality check (left operand type:\n    │ \"bytes\", right operand type: \"str\")\n"
		if !strings.Contains(got, want) {
			t.Errorf("excerpt:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("repeated finding folded", func(t *testing.T) {
		var r findings.Result
		for _, l := range []int{3, 9, 12} {
			r.Findings = append(r.Findings, diag("a.go", l, findings.SeverityError, "unreachable code", findings.BaselineNew))
		}
		if got := excerptOf(r); !strings.Contains(got, "- a.go:3 (3 times: lines 3, 9, 12) error\n") {
			t.Errorf("excerpt:\n%s", got)
		}
	})
	t.Run("failed test by name, with its message and place", func(t *testing.T) {
		r := findings.Result{Findings: []findings.Finding{
			{Kind: findings.KindTest, Suite: "example.com/mask", Test: "TestAOldCrash", Status: findings.StatusFailed, Severity: findings.SeverityError,
				Message: "panic: boom", Baseline: findings.BaselineUnchanged},
			{Kind: findings.KindTest, Suite: "example.com/mask", Test: "TestMul", Status: findings.StatusFailed, Severity: findings.SeverityError,
				File: "calc_test.go", Line: 18, Message: "Mul(2, 3) = 7, want 6", Baseline: findings.BaselineNew},
			{Kind: findings.KindTest, Suite: "example.com/mask", Test: "TestAdd", Status: findings.StatusPassed, Severity: findings.SeverityNote},
		}, Stops: []findings.Stop{{Unit: "example.com/mask", Reason: "a panic ended its test binary"}}}
		got := excerptOf(r)
		for _, want := range []string{"- test `example.com/mask TestMul` failed at calc_test.go:18\n    │ Mul(2, 3) = 7, want 6\n",
			"1 more finding(s) are on the base branch too", "Not every test ran: example.com/mask: a panic ended its test binary."} {
			if !strings.Contains(got, want) {
				t.Errorf("excerpt lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "TestAOldCrash") || strings.Contains(got, "TestAdd") {
			t.Errorf("an old or passing test shown:\n%s", got)
		}
	})
}
