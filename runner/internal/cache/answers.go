package cache

import (
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
)

// answerStore keeps reviewers' answers in the ledger (review.Answers), by
// the exact question and the environment it was asked in (AnswerKey).
type answerStore struct {
	ledger  *ledger.Ledger
	version string
	// env is the run's environment (Run.Env): part of every key.
	env string
	// take is false with --no-cache: answers are kept, not taken.
	take  bool
	debug *debuglog.Log
}

// Answer returns the kept answer of adapter with model to stdin in slot.
func (a answerStore) Answer(adapter, model string, slot int, stdin string) (review.StoredAnswer, bool) {
	if !a.take {
		return review.StoredAnswer{}, false
	}
	var s review.StoredAnswer
	_, ok, why := a.ledger.Get(AnswerKey(a.version, a.env, adapter, model, slot, stdin), &s)
	if why != nil {
		a.debug.Event(debuglog.EventCache, why.Error())
	}
	return s, ok && s.Text != ""
}

// Keep keeps an answer.
func (a answerStore) Keep(adapter, model string, slot int, stdin string, s review.StoredAnswer) {
	if err := a.ledger.Put(AnswerKey(a.version, a.env, adapter, model, slot, stdin), s); err != nil {
		a.debug.Event(debuglog.EventCache, fmt.Sprintf("answer not kept: %v", err))
	}
}

// Answers is the answer store of the run's reviews, nil without a cache.
func (c *Results) Answers() review.Answers {
	if c == nil {
		return nil
	}
	return answerStore{ledger: c.ledger, version: c.run.Version, env: c.run.Env, take: c.lookup, debug: c.debug}
}
