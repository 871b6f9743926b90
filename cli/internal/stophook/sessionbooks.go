package stophook

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A verdict book is keyed by its worktree's git directory, which git
// keeps when the worktree moves: a worktree moved away takes its book
// with it, and one added at the session's path in its place starts a
// fresh one. So the books a session's stops judged are also kept in a
// per-user record of the session (verdicts.SeeSession), and every stop
// of the session reads them back (sessionLeft): a book left failing by an
// earlier stop of the same session, that this stop does not judge, is
// named with its pending gates and where its worktree is now.

// seeSession records the project at root, judged by this stop, as a book
// of session id (verdicts.SeeSession), when root is in a linked worktree.
func (h *hook) seeSession(id, root string) {
	if id == "" || place.MovedByEnv() {
		return
	}
	d, ok := gitdir.Find(root)
	if !ok {
		return
	}
	p, ok := placeOf(d, root)
	home := verdicts.StateHome(h.o.Getenv)
	// Only a linked worktree's book can be left under a key the session's
	// path no longer opens (bookNow); and a state home inside the work
	// tree is no place for a record of ours.
	if !ok || p.Worktree() == "." || home == "" || within(home, d.TopLevel) {
		return
	}
	b := verdicts.SessionBook{Key: verdicts.KeyOf(p), Root: root, At: h.o.Now()}
	if err := verdicts.SeeSession(home, id, b); err != nil {
		h.warn("cannot record the project session %s judged: %v", id, err)
	}
}

// sessionLeft adds to found's unjudged projects each book an earlier stop
// of session id judged (verdicts.SessionBooks) that this stop does not
// judge (found.Root, when ok) and that holds gates failing: its worktree
// moved, its path taken by another worktree, or its git directory
// removed. Each is placed where its worktree is now, and Gone says what
// happened to it.
func sessionLeft(ctx context.Context, stateHome, id string, found trust.Discovery, ok bool, now time.Time) trust.Discovery {
	if place.MovedByEnv() {
		return found
	}
	judged := verdicts.Key{}
	if ok {
		if d, found2 := gitdir.Find(found.Root); found2 {
			if p, in := placeOf(d, found.Root); in {
				judged = verdicts.KeyOf(p)
			}
		}
	}
	for _, b := range verdicts.SessionBooks(stateHome, id) {
		if b.Key == judged || slices.ContainsFunc(found.Unjudged, func(k trust.Known) bool { return verdicts.KeyOf(k.Place) == b.Key }) {
			continue
		}
		k, ok := bookNow(b)
		if !ok || len(pendingOfRecord(ctx, k, now)) == 0 {
			continue
		}
		found.Unjudged = append(found.Unjudged, k)
	}
	return found
}

// bookNow is the project of the book b, placed where its worktree is now
// (git's record of a linked worktree's path follows a move), with Gone
// saying how it left the session's view; false for a book of a main
// worktree, whose place its path alone gives.
func bookNow(b verdicts.SessionBook) (trust.Known, bool) {
	if b.Key.Worktree == "." || filepath.IsAbs(b.Key.Worktree) {
		return trust.Known{}, false
	}
	prefix := ""
	if b.Key.Project != "." {
		prefix = b.Key.Project + "/"
	}
	oldTop := strings.TrimSuffix(b.Root, string(filepath.Separator)+filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	admin := filepath.Join(b.Key.CommonDir, filepath.FromSlash(b.Key.Worktree))
	p := place.Place{CommonDir: b.Key.CommonDir, GitDir: admin, TopLevel: oldTop, Prefix: prefix}
	earlier := fmt.Sprintf("an earlier stop of this session judged it at %s", runner.SafeText(b.Root))
	data, err := fsread.File(filepath.Join(admin, "gitdir"), 1<<12)
	if err != nil {
		return trust.Known{Place: p, Gone: earlier + "; git no longer knows its worktree (" +
			runner.SafeText(admin) + " is gone), its work judged by no stop since"}, true
	}
	p.TopLevel = filepath.Dir(strings.TrimSpace(string(data)))
	gone := goneDir(p.Root())
	switch {
	case gone != "":
		return trust.Known{Place: p, Gone: earlier + "; " + gone}, true
	case p.TopLevel != oldTop:
		return trust.Known{Place: p, Gone: earlier + "; its worktree was moved to " + runner.SafeText(p.TopLevel)}, true
	}
	return trust.Known{Place: p, Gone: earlier + "; this stop judges another project"}, true
}
