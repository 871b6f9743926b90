package stophook

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// onceSources are every notice an answer says once and then takes as
// told, by name: what its run could not look at and marked a point over
// (runner's RunResult.Once: the commits up to HEAD no point anchors, the
// commits the base branch moved over), and the configuration committed at
// HEAD adopted at this stop (site.pinned). Each goes through the verdict
// book (verdicts.Book.Tell, deliverNotices), never into the answer alone;
// a new one is added here (TestOnceNoticesOutliveTheirStop enumerates
// them).
var onceSources = []struct {
	name string
	of   func(out Outcome, s *site) string
}{
	{"run: commits no point anchors or the base moved over", func(out Outcome, _ *site) string { return out.once }},
	{"configuration adopted from HEAD", func(_ Outcome, s *site) string {
		if s == nil {
			return ""
		}
		return s.pinned
	}},
}

// onceNotices are the once-only notices of this answer (onceSources).
func onceNotices(out Outcome, s *site) []string {
	var once []string
	for _, src := range onceSources {
		if text := src.of(out, s); text != "" {
			once = append(once, text)
		}
	}
	return once
}

// deliverNotices records this answer's once-only notices in the verdict
// book of the project s and returns the sentences of those the book has
// for session (verdicts.Book.Told: every answer of the session whose stop
// first told them, and every session for verdicts.NoticeWindow) that said
// (the answer so far) does not carry already. A stop hook the agent runs
// itself, under a session id of its own, thus cannot take a notice away
// from the session a person watches. A block records its notices but does
// not tell them (it goes on: the next answers do). Without a book (no run
// yet) nothing is recorded: this answer alone tells them. A book that
// cannot be written is left alone.
func (h *hook) deliverNotices(ctx context.Context, s *site, session string, once []string, said string, block bool) []string {
	if s == nil || s.trust == nil {
		return nil
	}
	p, err := place.Locate(ctx, s.root)
	if err != nil {
		return nil
	}
	k := verdicts.KeyOf(p)
	if b, err := verdicts.Read(k); err != nil || b == nil {
		// No book yet (no run yet): one made here would be taken for a
		// run's (watchTrust leaves it to the run too).
		return nil
	}
	now := h.o.Now()
	var told []verdicts.Notice
	err = verdicts.Update(k, func(b *verdicts.Book) error {
		if b.Damaged != "" {
			return errLeaveBook
		}
		before := len(b.Notices)
		told = b.Told(session, now)
		for _, text := range once {
			b.Tell(text, session, now)
		}
		if !block {
			// An approve tells what it records; a block goes on, and
			// leaves it to the next answers.
			told = b.Told(session, now)
		}
		if len(b.Notices) == before {
			return errLeaveBook // nothing new to write
		}
		return nil
	})
	if err != nil && err != errLeaveBook {
		h.warn("cannot record what this stop tells once: %v", err)
	}
	var out []string
	for _, n := range told {
		if !strings.Contains(said, n.Text) {
			out = append(out, noticeSentence(n, !n.At.Before(now) && n.Session == session))
		}
	}
	return out
}

// noticeSentence is notice n as an answer tells it: a sentence of its own
// (the adopted configuration) as it is, a part of a "Not verified"
// sentence (the commits a run could not look at) as one; told again
// (first false), with when it was first told, and in which session.
func noticeSentence(n verdicts.Notice, first bool) string {
	text := runner.SafeText(n.Text)
	if !strings.HasSuffix(text, ".") {
		text = "Not verified: " + text + "."
	}
	if first {
		return text
	}
	who := ""
	if n.Session != "" {
		who = " in session " + runner.SafeText(n.Session)
	}
	return fmt.Sprintf("Earlier notice (first told at %s%s): %s", stamp(n.At), who, text)
}
