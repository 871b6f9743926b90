package stophook

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// excerptOf renders the part of one failed check with findings r, within
// the excerpt's budget.
func excerptOf(r findings.Result) string {
	g := runner.GateResult{JobID: "check:.:lint", Kind: "check", Status: runner.GateFail, Message: "Exited with code 1",
		LogPath: "/p/gauntlet_logs/check_._lint.1.log"}
	p := checkPart(g, g.JobID, &r, nil)
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

// numberRE finds the numbers a check's part gives: what it reports to
// fix, what the cut left out, what the base has too.
var (
	toFixRE = regexp.MustCompile(`It reports (\d+) (?:new )?finding\(s\) to fix`)
	cutRE   = regexp.MustCompile(`\(… (\d+) more finding\(s\): all are in`)
	oldRE   = regexp.MustCompile(`(\d+) more finding\(s\) are on the base branch too`)
	itemRE  = regexp.MustCompile(`(?m)^- .*?(?:\((\d+) times[:)])?.*$`)
	timesRE = regexp.MustCompile(`\((\d+) times[:)]`)
)

// For any judged result, every number a block gives is the count of what
// it lists plus the "N more" it cut: the items shown (a folded item
// counting its findings) and the cut add up to the findings to fix, and
// the base's count is the findings marked as on the base too: the
// numbers of findings.Result.Judge, which the log gives too
// (check.WriteFindings).
func TestExcerptCountsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var r findings.Result
		n := rapid.IntRange(0, 80).Draw(t, "n")
		for i := range n {
			kind := rapid.SampledFrom([]findings.Kind{findings.KindDiagnostic, findings.KindTest, findings.KindLine}).Draw(t, "kind")
			f := findings.Finding{Kind: kind, File: rapid.SampledFrom([]string{"a.go", "b.go", ""}).Draw(t, "file"),
				Line:     rapid.IntRange(0, 5).Draw(t, "line"),
				Severity: rapid.SampledFrom([]findings.Severity{findings.SeverityError, findings.SeverityWarning, findings.SeverityNote}).Draw(t, "sev"),
				Message:  rapid.SampledFrom([]string{"boom", "unreachable code", "a\nlong\nmessage " + strings.Repeat("x", 200)}).Draw(t, "msg"),
				Baseline: rapid.SampledFrom([]findings.Baseline{findings.BaselineNew, findings.BaselineUnchanged}).Draw(t, "baseline")}
			if kind == findings.KindTest {
				f.Suite, f.Test = "pkg", rapid.SampledFrom([]string{"TestA", "TestB", fmt.Sprint("Test", i)}).Draw(t, "test")
				f.Status = findings.StatusFailed
			}
			r.Findings = append(r.Findings, f)
		}
		got := excerptOf(r)
		j := r.Judge()
		if len(j.Fix) == 0 {
			if toFixRE.MatchString(got) {
				t.Fatalf("nothing to fix, yet:\n%s", got)
			}
		} else {
			m := toFixRE.FindStringSubmatch(got)
			if m == nil || atoiT(t, m[1]) != len(j.Fix) {
				t.Fatalf("to fix: %v, want %d:\n%s", m, len(j.Fix), got)
			}
			listed := 0
			for _, item := range itemRE.FindAllString(got, -1) {
				listed++
				if tm := timesRE.FindStringSubmatch(item); tm != nil {
					listed += atoiT(t, tm[1]) - 1
				}
			}
			if cm := cutRE.FindStringSubmatch(got); cm != nil {
				listed += atoiT(t, cm[1])
			}
			if listed != len(j.Fix) {
				t.Fatalf("items and the cut add up to %d, not %d:\n%s", listed, len(j.Fix), got)
			}
		}
		if om := oldRE.FindStringSubmatch(got); len(j.Old) > 0 && (om == nil || atoiT(t, om[1]) != len(j.Old)) || len(j.Old) == 0 && om != nil {
			t.Fatalf("on the base too: %v, want %d:\n%s", om, len(j.Old), got)
		}
	})
}

func atoiT(t *rapid.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// What another check calls pre-existing is never a finding to fix here
// (go test's vet step and go vet report the same old finding); a text
// line is shown at its file:line; a check with nothing new but a stop
// says so.
func TestExcerptAcrossChecks(t *testing.T) {
	vetOld := diag("a.go", 5, findings.SeverityError, "fmt.Sprintf format %d has arg \"x\" of wrong type string", findings.BaselineUnchanged)
	testNew := vetOld
	testNew.Baseline = findings.BaselineNew
	gates := []runner.GateResult{
		{JobID: "check:.:test", Kind: "check", Status: runner.GateFail, Message: "Exited with code 1", LogPath: "/p/t.log",
			Findings: &findings.Result{Format: "go-test", Findings: []findings.Finding{testNew,
				{Kind: findings.KindLine, File: "lib/x.py", Line: 3, Severity: findings.SeverityError, Message: "lib/x.py:3: E501 line too long", Baseline: findings.BaselineNew}}}},
		{JobID: "check:.:vet", Kind: "check", Status: runner.GatePreExisting, Message: "Exited with code 1, as on the base branch",
			Findings: &findings.Result{Format: "govet", Findings: []findings.Finding{vetOld}}},
		{JobID: "check:.:build", Kind: "check", Status: runner.GateFail, Message: "Exited with code 1; unverified: example.com/x: it did not build", LogPath: "/p/b.log",
			Findings: &findings.Result{Format: "go-test", Findings: []findings.Finding{vetOld}, Stops: []findings.Stop{{Unit: "example.com/x", Reason: "it did not build"}}}},
	}
	got := Excerpt(gates)
	for _, want := range []string{
		"It reports 1 new finding(s) to fix (read as go-test; its log: /p/t.log):\n- lib/x.py:3: output line\n    │ lib/x.py:3: E501 line too long\n",
		"1 more finding(s) are on the base branch too, or fail another check the same way there",
		"Nothing new in what it reports (read as go-test; its log: /p/b.log), but it cannot be judged pre-existing:\nNot every test ran: example.com/x: it did not build.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("excerpt lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "wrong type string") {
		t.Errorf("a finding another check calls pre-existing is to fix:\n%s", got)
	}
}
