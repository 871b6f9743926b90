package verdicts

import (
	"testing"
	"time"
)

// A verdict is taken only in the environment it was reached in: a pass in
// another environment than a failure's holds that failure, pending to a
// run in any environment but the pass's; a pass in the failure's own
// environment verifies it; a new failure replaces everything; Settle in
// the pass's environment keeps a held failure for the others. For every
// sequence of a failure and up to two later verdicts over three
// environments (the failure's also none: an older version's), a check and
// a slot alike, each environment sees the failure pending exactly as the
// model says.
func TestHeldFailures(t *testing.T) {
	envs := []string{"S", "F", "P"}
	var seqs [][]step
	for _, e0 := range append([]string{""}, envs...) {
		for _, e1 := range envs {
			for _, f1 := range []bool{false, true} {
				seqs = append(seqs, []step{{e0, true}, {e1, f1}})
				for _, e2 := range envs {
					for _, f2 := range []bool{false, true} {
						seqs = append(seqs, []step{{e0, true}, {e1, f1}, {e2, f2}})
					}
				}
			}
		}
	}
	at := time.Unix(100, 0)
	for _, seq := range seqs {
		b := newBook()
		for i, s := range seq {
			st, slot := StatusPass, StatusPass
			if s.fail {
				st, slot = StatusFail, StatusFail
			}
			if err := b.RecordCheck("check:.:c", CheckVerdict{Status: st, Run: i + 1, At: at, Env: s.env}); err != nil {
				t.Fatal(err)
			}
			if err := b.RecordSlot("review:.:r", 1, SlotVerdict{Status: slot, Run: i + 1, At: at, Env: s.env,
				Violations: []Violation{{File: "a", Line: 1, Issue: "x"}}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, asker := range envs {
			want := model(seq, asker)
			p, _ := b.Pending(t.TempDir(), asker, nil)
			if p.Checks["check:.:c"] != want || (len(p.Slots["review:.:r"]) == 1) != want {
				t.Errorf("%v asked in %s: pending check %v, slot %v; want %v", seq, asker, p.Checks, p.Slots, want)
			}
			// a pass archives the logs: what it settles leaves the same
			// pending to every environment
			if last := seq[len(seq)-1]; !last.fail {
				settled := cloneBook(b)
				settled.Settle(last.env)
				if p, _ := settled.Pending(t.TempDir(), asker, nil); p.Checks["check:.:c"] != want || (len(p.Slots["review:.:r"]) == 1) != want {
					t.Errorf("%v settled, asked in %s: pending %v; want %v", seq, asker, p.Checks, want)
				}
			}
		}
	}
}

// step is a verdict reached in an environment.
type step struct {
	env  string
	fail bool
}

// model is whether the failure of seq is pending to a run in asker: the
// last verdict failed; or it passed in another environment than asker's
// while a failure is outstanding in an environment where no pass came
// after it (an older version's failure, with no environment, is verified
// by a pass in any).
func model(seq []step, asker string) bool {
	last := seq[len(seq)-1]
	if last.fail {
		return true
	}
	if last.env == asker {
		return false
	}
	// the latest failure, and whether its own environment passed since
	failAt := -1
	for i, s := range seq {
		if s.fail {
			failAt = i
		}
	}
	if seq[failAt].env == "" && failAt < len(seq)-1 {
		return false // an older version's failure: any pass verifies it
	}
	for _, s := range seq[failAt+1:] {
		if s.env == seq[failAt].env {
			return false
		}
	}
	return true
}

// cloneBook is a deep enough copy of b for Settle.
func cloneBook(b *Book) *Book {
	c := newBook()
	for k, v := range b.Checks {
		c.Checks[k] = v
	}
	for k, slots := range b.Slots {
		c.Slots[k] = map[int]SlotVerdict{}
		for i, v := range slots {
			c.Slots[k][i] = v
		}
	}
	return c
}
