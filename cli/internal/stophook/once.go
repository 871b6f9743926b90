package stophook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	var told owed
	err = verdicts.Update(k, func(b *verdicts.Book) error {
		if b.Damaged != "" {
			return errLeaveBook
		}
		var changed bool
		told, changed = recordNotices(b, session, once, block, now)
		if !changed {
			return errLeaveBook // nothing new to write
		}
		return nil
	})
	if err != nil && err != errLeaveBook {
		h.warn("cannot record what this stop tells once: %v", err)
	}
	return toldLines(told, session, said, now)
}

// recordNotices records once, the once-only notices of a stop of session
// at now, in b (verdicts.Book.Tell) and returns the notices the answer
// owes (verdicts.Book.Told): those recorded before it for a block (it
// goes on, and leaves its own to the next answers), all of them for an
// approve, with the count of those b could no longer keep. changed is
// false when b is as it was: nothing to write.
func recordNotices(b *verdicts.Book, session string, once []string, block bool, now time.Time) (told owed, changed bool) {
	added := map[string]bool{}
	for _, text := range once {
		if b.Tell(text, session, now) {
			added[text], changed = true, true
		}
	}
	for _, n := range b.Told(session, now) {
		if !block || !added[n.Text] {
			told.notices = append(told.notices, n)
		}
	}
	told.dropped = b.NoticesDropped
	return told, changed
}

// maxToldNotices bounds the notices one answer names; the rest are
// counted, and `agent-gauntlet status` lists them all (listNotices).
const maxToldNotices = 5

// owed are the notices an answer owes, oldest first, and the count of
// those the book could no longer keep (nil for none).
type owed struct {
	notices []verdicts.Notice
	dropped *verdicts.DroppedNotices
}

// toldLines are the sentences an answer of session at now adds for the
// notices it owes that said (the answer so far) does not carry already:
// at most maxToldNotices of them, those first told at this stop first,
// then those naming unverified work before the others, newest first; the
// rest counted, with where all are listed; and how many the book could no
// longer keep.
func toldLines(told owed, session, said string, now time.Time) []string {
	type ranked struct {
		n     verdicts.Notice
		first bool
		order int
	}
	var due []ranked
	for i, n := range told.notices {
		if !strings.Contains(said, n.Text) {
			due = append(due, ranked{n, !n.At.Before(now) && n.Session == session, i})
		}
	}
	slices.SortFunc(due, func(a, b ranked) int {
		switch {
		case a.first != b.first:
			return boolOrder(a.first)
		case unverifiedNotice(a.n.Text) != unverifiedNotice(b.n.Text):
			return boolOrder(unverifiedNotice(a.n.Text))
		}
		return b.order - a.order // newest first
	})
	var out []string
	for _, r := range due[:min(len(due), maxToldNotices)] {
		out = append(out, noticeSentence(r.n, r.first))
	}
	if more := len(due) - maxToldNotices; more > 0 {
		out = append(out, fmt.Sprintf("%d more earlier notice(s) are not repeated here: %s lists them all.", more, "`agent-gauntlet status`"))
	}
	if d := told.dropped; d != nil {
		out = append(out, droppedSentence(d))
	}
	return out
}

// boolOrder sorts true first.
func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

// droppedSentence says how many notices the verdict book could no longer
// keep.
func droppedSentence(d *verdicts.DroppedNotices) string {
	return fmt.Sprintf("%d older notice(s) are no longer kept (the verdict book keeps the newest %d; the last was dropped at %s): what they said is lost.",
		d.Count, verdicts.MaxNotices, stamp(d.Last))
}

// listNotices are every notice b keeps, newest first, as answers tell
// them again, and how many it could no longer keep: what
// `agent-gauntlet status` lists.
func listNotices(b *verdicts.Book) []string {
	var out []string
	for _, n := range slices.Backward(b.Notices) {
		out = append(out, noticeSentence(n, false))
	}
	if d := b.NoticesDropped; d != nil {
		out = append(out, droppedSentence(d))
	}
	return out
}

// unverifiedNotice reports a notice that names unverified work: a part of
// a "Not verified" sentence, not a sentence of its own.
func unverifiedNotice(text string) bool { return !strings.HasSuffix(text, ".") }

// noticeSentence is notice n as an answer tells it: a sentence of its own
// (the adopted configuration) as it is, a part of a "Not verified"
// sentence (the commits a run could not look at) as one; told again
// (first false), with when it was first told, and in which session.
func noticeSentence(n verdicts.Notice, first bool) string {
	text := runner.SafeText(n.Text)
	if unverifiedNotice(n.Text) {
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

// Notices are the once-only notices the verdict book of the project j
// judges keeps, newest first, each as a stop hook's answer tells it again
// (listNotices), with how many it could no longer keep: all of them,
// whichever session first told them, so that a person sees what an
// answer counted without naming, and what a client that shows no approve
// message (Cursor, Copilot CLI) never showed. None without a project or
// a book.
func (j Judgment) Notices(ctx context.Context) []string {
	if j.Root == "" {
		return nil
	}
	p, err := place.Locate(ctx, j.Root)
	if err != nil {
		return nil
	}
	b, err := verdicts.Read(verdicts.KeyOf(p))
	if err != nil || b == nil {
		return nil
	}
	return listNotices(b)
}
