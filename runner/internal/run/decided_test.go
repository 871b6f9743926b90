package run

import (
	"fmt"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// A violation still pending that a standing skip decision of the branch
// covers (the agent marked it in another review file than its slot's
// newest) is skipped, with the decision's note; a slot left with nothing
// pending is no longer pending; a fix the agent claimed, a violation
// without a decision, one that only carries the decision's id and a slot
// that failed without naming one stay.
func TestSkipDecided(t *testing.T) {
	v := func(id string, line int, issue, status string) gate.Violation {
		return gate.Violation{ID: id, File: "src/a.go", Line: line, Issue: issue, Status: status}
	}
	skips := []gate.Skip{
		{ID: "aaaaaaa", File: "src/a.go", Line: 3, Issue: "The name hides the package", Note: "intended"},
		{File: "src/a.go", Line: 9, Issue: "The loop variable is never used", Note: "by hand"},
	}
	cases := []struct {
		name        string
		slot        []gate.Violation
		wantOpen    []string // ids still pending; nil: the slot is not pending
		wantSkipped []string
	}{
		{"by id alone", []gate.Violation{v("aaaaaaa", 4, "reworded entirely", gate.ViolationNew)}, []string{"aaaaaaa"}, nil},
		{"by place and issue", []gate.Violation{v("bbbbbbb", 9, "The loop variable is never used here", gate.ViolationNew)}, nil, []string{"bbbbbbb"}},
		{"another issue on the line", []gate.Violation{v("ccccccc", 9, "The error is dropped", gate.ViolationNew)}, []string{"ccccccc"}, nil},
		{"claimed fixed", []gate.Violation{v("aaaaaaa", 3, "The name hides the package", gate.ViolationFixed)}, []string{"aaaaaaa"}, nil},
		{"one of two", []gate.Violation{v("aaaaaaa", 3, "The name hides the package", gate.ViolationNew), v("ddddddd", 20, "Other", gate.ViolationNew)}, []string{"ddddddd"}, []string{"aaaaaaa"}},
		{"failed naming none", []gate.Violation{}, []string{}, nil},
	}
	for _, tc := range cases {
		p := &gate.Pending{Slots: map[string]map[int][]gate.Violation{"review:src:q": {1: tc.slot}},
			Skipped: map[string]map[int][]gate.Violation{}}
		skipDecided(p, skips)
		open, pending := p.Slots["review:src:q"][1]
		switch {
		case tc.wantOpen == nil && pending:
			t.Errorf("%s: slot still pending with %+v", tc.name, open)
		case tc.wantOpen != nil && !pending:
			t.Errorf("%s: slot no longer pending, want %v open", tc.name, tc.wantOpen)
		case tc.wantOpen != nil && !sameIDs(open, tc.wantOpen):
			t.Errorf("%s: open %+v, want %v", tc.name, open, tc.wantOpen)
		}
		skipped := p.Skipped["review:src:q"][1]
		if !sameIDs(skipped, tc.wantSkipped) {
			t.Errorf("%s: skipped %+v, want %v", tc.name, skipped, tc.wantSkipped)
		}
		for _, s := range skipped {
			if s.Status != gate.ViolationSkipped || s.Result == nil {
				t.Errorf("%s: skipped without its status or note: %+v", tc.name, s)
			}
		}
	}
	skipDecided(nil, skips) // no verification run: nothing to do
}

// TestSkipDecidedCoversSkippedCode pins what a standing decision covers
// among the violations still pending. Invariant: a decision covers a
// pending violation only when it was made for the code that violation
// flags (the same anchor; with a decision recorded without one, the same
// line) with a similar issue; a shared id never suffices (an id is
// carried over from the violation a report was matched with, so a report
// on other code may carry the id of the one skipped). Generated: every
// combination of the pending entry's id, anchor, line and issue against
// a decision with and without an anchor.
func TestSkipDecidedCoversSkippedCode(t *testing.T) {
	skipped, other := fingerprint.Anchor("var p = bad()"), fingerprint.Anchor("var s = bad()")
	for _, skAnchor := range []string{skipped, ""} {
		sk := gate.Skip{ID: "aaaaaaa", File: "src/a.go", Line: 3, Anchor: skAnchor, Issue: "p marker left in the code", Note: "kept"}
		for _, id := range []string{"aaaaaaa", "bbbbbbb"} {
			for _, anchor := range []string{skipped, other, ""} {
				for _, line := range []int{3, 4} {
					for _, issue := range []string{"s marker left in the code", "integer overflow on 32-bit platforms"} {
						v := gate.Violation{ID: id, File: "src/a.go", Line: line, Anchor: anchor, Issue: issue, Status: gate.ViolationNew}
						located := line == sk.Line
						if sk.Anchor != "" {
							located = anchor == sk.Anchor
						}
						want := located && issue != "integer overflow on 32-bit platforms"
						p := &gate.Pending{Slots: map[string]map[int][]gate.Violation{"review:src:q": {1: {v}}},
							Skipped: map[string]map[int][]gate.Violation{}}
						skipDecided(p, []gate.Skip{sk})
						got := len(p.Skipped["review:src:q"][1]) == 1
						if got != want {
							t.Errorf("decision (anchor %q) on pending %s: skipped %v, want %v", skAnchor, fmt.Sprintf("%+v", v), got, want)
						}
					}
				}
			}
		}
	}
}

// sameIDs reports whether vs are the violations of ids, in order.
func sameIDs(vs []gate.Violation, ids []string) bool {
	if len(vs) != len(ids) {
		return false
	}
	for i, v := range vs {
		if v.ID != ids[i] {
			return false
		}
	}
	return true
}
