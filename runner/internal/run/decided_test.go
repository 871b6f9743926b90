package run

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// A violation still pending that a standing skip decision of the branch
// covers (the agent marked it in another review file than its slot's
// newest) is skipped, with the decision's note; a slot left with nothing
// pending is no longer pending; a fix the agent claimed, a violation
// without a decision and a slot that failed without naming one stay.
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
		{"by id", []gate.Violation{v("aaaaaaa", 4, "reworded entirely", gate.ViolationNew)}, nil, []string{"aaaaaaa"}},
		{"by place and issue", []gate.Violation{v("bbbbbbb", 9, "The loop variable is never used here", gate.ViolationNew)}, nil, []string{"bbbbbbb"}},
		{"another issue on the line", []gate.Violation{v("ccccccc", 9, "The error is dropped", gate.ViolationNew)}, []string{"ccccccc"}, nil},
		{"claimed fixed", []gate.Violation{v("aaaaaaa", 3, "The name hides the package", gate.ViolationFixed)}, []string{"aaaaaaa"}, nil},
		{"one of two", []gate.Violation{v("aaaaaaa", 3, "x", gate.ViolationNew), v("ddddddd", 20, "Other", gate.ViolationNew)}, []string{"ddddddd"}, []string{"aaaaaaa"}},
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
