package gate

// Pending is what the latest earlier runs left to verify: the failures a
// verification run checks again, checks and review slots apart. A nil
// *Pending holds nothing (a first run).
type Pending struct {
	// Checks holds the ids of the check jobs whose latest log failed or
	// erred.
	Checks map[string]bool
	// Slots holds, per review job id and slot index (from 1), the slots
	// whose latest verdict was a failure, with the violations still to
	// verify (status new or fixed; the agent's skips left out). The list is
	// empty when the reviewer failed the slot without naming any violation.
	Slots map[string]map[int][]Violation
	// Passed holds, per review job id and slot index, the slots whose
	// latest verdict passed: a verification run of a review with several
	// slots does not ask them again.
	Passed map[string]map[int]PassedSlot
	// Skipped holds, per review job id and slot index, the violations the
	// agent skipped in the slot's latest verdict, a failure (with its
	// note as Result): the reviewer is told about them.
	Skipped map[string]map[int][]Violation
}

// PassedSlot is a review slot whose latest verdict passed.
type PassedSlot struct {
	// Adapter is the CLI that passed it; Run the run it passed in.
	Adapter string
	Run     int
	// BelowThreshold are the findings that pass left out under the rerun
	// threshold (see Result.BelowThreshold).
	BelowThreshold []Violation
}

// SlotPassed is how review job id's slot passed last, when its latest
// verdict passed.
func (p *Pending) SlotPassed(id string, slot int) (PassedSlot, bool) {
	if p == nil {
		return PassedSlot{}, false
	}
	s, ok := p.Passed[id][slot]
	return s, ok
}

// SlotSkipped are the violations the agent skipped in review job id's
// slot's latest verdict.
func (p *Pending) SlotSkipped(id string, slot int) []Violation {
	if p == nil {
		return nil
	}
	return p.Skipped[id][slot]
}

// CheckFailed reports whether check job id failed in its latest run.
func (p *Pending) CheckFailed(id string) bool { return p != nil && p.Checks[id] }

// SlotViolations are the violations of review job id's slot still to
// verify (none when the slot has nothing pending).
func (p *Pending) SlotViolations(id string, slot int) []Violation {
	if p == nil {
		return nil
	}
	return p.Slots[id][slot]
}

// Count returns how many gates have something pending and how many
// failures: each failed check counts one, each pending slot its
// violations, or one when it failed without naming any.
func (p *Pending) Count() (gates, failures int) {
	if p == nil {
		return 0, 0
	}
	gates = len(p.Checks)
	failures = len(p.Checks)
	for _, slots := range p.Slots {
		if len(slots) == 0 {
			continue
		}
		gates++
		for _, vs := range slots {
			failures += max(len(vs), 1)
		}
	}
	return gates, failures
}
