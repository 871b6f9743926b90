package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
)

// evalRoot is a work tree holding the files of evalDiff.
func evalRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{
		"src/a.go": "package a\nvar x = 1\nvar y = 2\nvar z = 3\n",
		"b.go":     "package b\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestEvaluateIDs pins that every stored violation carries its id and the
// anchor of its line, that a violation reported twice is kept once, and
// that a re-report keeps the id of the violation it verifies even when the
// reviewer words it differently and points at another line.
func TestEvaluateIDs(t *testing.T) {
	root := evalRoot(t)
	changed := parse.ParseDiff(evalDiff)
	ev := evaluate(evalInput{text: failAnswer(viol("src/a.go", 2, "x is never used", "high"), viol("src/a.go", 2, "x is never used", "high"),
		viol("b.go", 1, "package name", "low")), changed: changed, root: root})
	if ev.status != gate.StatusFail || len(ev.stored) != 2 || len(ev.open) != 2 {
		t.Fatalf("status %s stored %d open %d notes %q", ev.status, len(ev.stored), len(ev.open), ev.notes)
	}
	first := ev.stored[0]
	want := fingerprint.ID(fingerprint.Fields{File: "src/a.go", Line: 2, Anchor: fingerprint.Anchor("var x = 1"), Issue: "x is never used"})
	if first.ID != want || first.Anchor != fingerprint.Anchor("var x = 1") {
		t.Errorf("stored %+v, want id %s", first, want)
	}
	if !strings.Contains(strings.Join(ev.notes, "\n"), "reported twice (id "+want+")") {
		t.Errorf("notes %q", ev.notes)
	}

	// The next review rewords it and points one line lower: same violation.
	prev := first
	prev.Status = gate.ViolationFixed
	ev = evaluate(evalInput{text: failAnswer(viol("src/a.go", 3, "The variable x is never used", "high")), changed: changed,
		root: root, previous: []gate.Violation{prev}})
	if len(ev.open) != 1 || ev.open[0].ID != want {
		t.Errorf("re-report: open %+v, want id %s", ev.open, want)
	}
}

// TestEvaluateStandingSkips pins the skip decisions of docs/reviews.md: a
// violation matching a skip
// decision of the branch is stored as skipped with the decision's note and
// does not fail the slot, even in a first run (no earlier slot JSON); a
// different problem on the same line still fails.
func TestEvaluateStandingSkips(t *testing.T) {
	root := evalRoot(t)
	changed := parse.ParseDiff(evalDiff)
	skip := gate.Skip{ID: "zzzzzzz", File: "src/a.go", Line: 7, Anchor: fingerprint.Anchor("var x = 1"),
		Issue: "x is never used", Note: "kept for the next change"}
	ev := evaluate(evalInput{text: failAnswer(viol("src/a.go", 2, "Variable x is never used anywhere", "high")), changed: changed,
		root: root, skips: []gate.Skip{skip}})
	if ev.status != gate.StatusPass || len(ev.skipped) != 1 || len(ev.stored) != 1 {
		t.Fatalf("status %s skipped %d stored %d", ev.status, len(ev.skipped), len(ev.stored))
	}
	if v := ev.stored[0]; v.Status != gate.ViolationSkipped || v.Result != "kept for the next change" {
		t.Errorf("stored %+v", v)
	}
	ev = evaluate(evalInput{text: failAnswer(viol("src/a.go", 2, "Integer overflow on 32-bit platforms", "high")), changed: changed,
		root: root, skips: []gate.Skip{skip}})
	if ev.status != gate.StatusFail || len(ev.open) != 1 {
		t.Errorf("another problem on the line: status %s open %d", ev.status, len(ev.open))
	}
}

// TestEvaluateSkipsNotInherited pins that a skip, the agent's in the
// previous JSON or a standing decision of the branch, covers the violation
// it was made for and nothing else: not another problem on its line, not
// a similar problem on a line the change added beside it (the digits and
// one-letter names that tell "x" from "y" are not significant words).
// A re-report of the skipped violation keeps the skip, reworded or with
// the reviewer pointing at a line beside it that the change did not add
// (which, without the previous JSON, is out of the diff's scope anyway).
func TestEvaluateSkipsNotInherited(t *testing.T) {
	root := evalRoot(t)
	changed := parse.ParseDiff(evalDiff)
	anchor := fingerprint.Anchor("var x = 1")
	skippedX := gate.Violation{File: "src/a.go", Line: 2, Issue: "x is never used", Fix: "remove it", Priority: "high",
		Status: gate.ViolationSkipped, Anchor: anchor, Result: "kept on purpose"}
	skippedX.ID = ID(skippedX)
	decision := gate.Skip{ID: skippedX.ID, File: "src/a.go", Line: 2, Anchor: anchor, Issue: "x is never used", Note: "kept on purpose"}
	tests := []struct {
		name   string
		report string
		keep   bool
	}{
		{"the same violation", viol("src/a.go", 2, "x is never used", "high"), true},
		{"reworded", viol("src/a.go", 2, "The variable x is never used anywhere", "high"), true},
		{"pointed at an unchanged line beside it", viol("src/a.go", 4, "x is never used", "high"), true},
		{"another problem on its line", viol("src/a.go", 2, "Integer overflow on 32-bit platforms", "high"), false},
		{"a similar problem on an added line beside it", viol("src/a.go", 3, "y is never used", "high"), false},
	}
	for _, tt := range tests {
		for _, via := range []string{"previous JSON", "standing decision"} {
			in := evalInput{text: failAnswer(tt.report), changed: changed, root: root}
			if via == "previous JSON" {
				in.skippedBefore = []gate.Violation{skippedX}
			} else {
				in.skips = []gate.Skip{decision}
			}
			ev := evaluate(in)
			switch {
			case tt.keep && (ev.status != gate.StatusPass || len(ev.open) != 0):
				t.Errorf("%s, %s: status %s, %d open, want the skip kept", tt.name, via, ev.status, len(ev.open))
			case !tt.keep && (ev.status != gate.StatusFail || len(ev.open) != 1):
				t.Errorf("%s, %s: status %s, %d open, want a new violation", tt.name, via, ev.status, len(ev.open))
			}
		}
	}
}

// TestEvaluateNeighbours pins that two similar violations on neighbouring
// lines stay two: a verification that re-reports both, in any order,
// keeps both open under their own ids, and one that re-reports only the
// second fixes the first alone (never the one still reported).
func TestEvaluateNeighbours(t *testing.T) {
	root := evalRoot(t)
	changed := parse.ParseDiff(evalDiff)
	prev := func(line int, text, issue string) gate.Violation {
		v := gate.Violation{File: "src/a.go", Line: line, Issue: issue, Fix: "remove it", Priority: "high",
			Status: gate.ViolationNew, Anchor: fingerprint.Anchor(text)}
		v.ID = ID(v)
		return v
	}
	x, y := prev(2, "var x = 1", "x is never used"), prev(3, "var y = 2", "y is never used")
	if x.ID == y.ID {
		t.Fatal("the two violations share an id")
	}
	for _, order := range [][]gate.Violation{{x, y}, {y, x}} {
		ev := evaluate(evalInput{text: failAnswer(viol("src/a.go", 3, "y is never used", "high"), viol("src/a.go", 2, "x is never used", "high")),
			changed: changed, root: root, previous: order})
		if len(ev.open) != 2 || len(ev.fixed) != 0 {
			t.Fatalf("both re-reported: open %+v, fixed %+v", ev.open, ev.fixed)
		}
		ids := map[string]bool{ev.open[0].ID: true, ev.open[1].ID: true}
		if !ids[x.ID] || !ids[y.ID] {
			t.Errorf("both re-reported: ids %v, want %s and %s", ids, x.ID, y.ID)
		}
		ev = evaluate(evalInput{text: failAnswer(viol("src/a.go", 3, "y is never used", "high")), changed: changed, root: root, previous: order})
		if len(ev.open) != 1 || ev.open[0].ID != y.ID || len(ev.fixed) != 1 || ev.fixed[0].ID != x.ID {
			t.Errorf("y re-reported: open %+v, fixed %+v", ev.open, ev.fixed)
		}
	}
}
