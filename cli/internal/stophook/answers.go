package stophook

import (
	"context"

	"slices"
	"time"
	"unicode/utf8"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// answersKind is the store kind of the record of the last answer this hook
// gave each agent session.
const answersKind = "answers"

// maxAnswered bounds the sessions the answers record keeps: past it the
// oldest session's answer is dropped.
const maxAnswered = 16

// maxAnswerText bounds the message an answer record keeps; the rest is
// cut, and the cut said.
const maxAnswerText = 16 << 10

// Answer is the last answer the stop hook gave one agent session: what a
// person sees of it (the message: the systemMessage of the dialects that
// show one, the stderr line of those whose allow shows nothing), whole.
type Answer struct {
	// Session is the agent session ("" when the input named none).
	Session string `json:"session"`
	// At is when the hook answered.
	At time.Time `json:"at"`
	// Status is the answer's status; Block whether it kept the agent
	// working.
	Status string `json:"status"`
	Block  bool   `json:"block"`
	// Message is the answer's message, every notice and "Not verified"
	// sentence in it.
	Message string `json:"message"`
}

// answers is the record, per project and work tree, of the last answer to
// each agent session, oldest first: where `agent-gauntlet status` shows a
// person everything an answer said, whatever the client showed of it.
type answers struct {
	Last []Answer `json:"last"`
}

// noteAnswer records out as the last answer to session in the project at
// root (best effort: the answer is given either way).
func (h *hook) noteAnswer(ctx context.Context, root, session string, out Outcome) {
	if root == "" {
		return
	}
	st, key, ok := recordAt(ctx, root, answersKind)
	if !ok {
		return
	}
	msg := out.Message
	if len(msg) > maxAnswerText {
		n := maxAnswerText
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n-- // never half a character
		}
		msg = msg[:n] + " … (cut: the whole answer was on the hook's stderr)"
	}
	a := Answer{Session: session, At: h.o.Now(), Status: string(out.Status), Block: out.Block(), Message: msg}
	var rec answers
	err := st.Update(&rec, func() (bool, error) {
		rec.Last = slices.DeleteFunc(rec.Last, func(x Answer) bool { return x.Session == session })
		rec.Last = append(rec.Last, a)
		rec.Last = keepAnswers(rec.Last)
		return true, nil
	}, key...)
	if err != nil {
		h.warn("cannot record this answer for `agent-gauntlet status`: %v", err)
	}
}

// keepAnswers bounds last (oldest first) to maxAnswered answers: the
// oldest are dropped, those at the retry limit last. That approve lets an
// agent stop with gates failing, and Cursor and Copilot CLI show a person
// nothing of it: stop hooks the agent runs by hand under made-up session
// ids must not push it out of what `agent-gauntlet status` lists.
func keepAnswers(last []Answer) []Answer {
	for len(last) > maxAnswered {
		i := slices.IndexFunc(last, func(a Answer) bool { return a.Status != string(runner.StatusRetryLimitExceeded) })
		if i < 0 {
			i = 0
		}
		last = slices.Delete(last, i, i+1)
	}
	return last
}

// Answers are the last answers the stop hook gave each agent session in
// the project j judges, newest first: everything each said to a person,
// whatever its client showed (Cursor and Copilot CLI show nothing of an
// allow). None without a project or a record.
func (j Judgment) Answers(ctx context.Context) []Answer {
	if j.Root == "" {
		return nil
	}
	st, key, ok := recordAt(ctx, j.Root, answersKind)
	if !ok {
		return nil
	}
	var rec answers
	if found, err := st.Read(&rec, key...); !found || err != nil {
		return nil
	}
	slices.Reverse(rec.Last)
	return rec.Last
}
