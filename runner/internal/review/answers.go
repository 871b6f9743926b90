package review

import "time"

// Answers keeps reviewers' answers by the exact question: the adapter, its
// model and the whole input (prompt and diff). It must be safe for
// concurrent use.
type Answers interface {
	// Answer returns the answer adapter gave with model to stdin in slot,
	// if kept.
	Answer(adapter, model string, slot int, stdin string) (StoredAnswer, bool)
	// Keep keeps a usable answer (one that reached a verdict).
	Keep(adapter, model string, slot int, stdin string, a StoredAnswer)
}

// StoredAnswer is a reviewer's answer as Answers keeps it.
type StoredAnswer struct {
	// Text is the answer (the CLI's envelope removed), Stdout the CLI's
	// whole output.
	Text   string `json:"text"`
	Stdout string `json:"stdout"`
	// At is when it was given.
	At time.Time `json:"at"`
}

// answer is the kept answer of adapterName to stdin in slot, when the gate
// takes answers from the cache.
func (g *gateRun) answer(adapterName string, slot int, stdin string) (StoredAnswer, bool) {
	if g.answers == nil {
		return StoredAnswer{}, false
	}
	return g.answers.Answer(adapterName, g.rv.Model, slot, stdin)
}

// allAnswered reports whether every slot of toRun has its question
// answered by the adapter it goes to when every adapter is healthy.
func (g *gateRun) allAnswered(toRun []int) bool {
	if g.answers == nil || len(toRun) == 0 || len(g.prefs) == 0 {
		return false
	}
	for _, i := range toRun {
		if _, ok := g.answer(g.prefs[(i-1)%len(g.prefs)], i, g.slotInput(i).stdin); !ok {
			return false
		}
	}
	return true
}
