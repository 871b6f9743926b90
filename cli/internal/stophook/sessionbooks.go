package stophook

import (
	"context"
	"fmt"
	"os"
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

// A verdict book is keyed by its work tree's git directory, which git
// keeps when a linked worktree moves, and which moves with the repository
// when the main work tree does: a work tree moved away takes its book
// with it, and whatever is made at the session's path in its place (an
// empty directory, another worktree, a clone) has none or another one.
// So the books a session's stops judged, main or linked, are also kept in
// a per-user record of the session (verdicts.SeeSession), each with its
// own ID (verdicts.Book.ID) and the gates the session's last answer there
// left failing or dropped; and every stop of the session reads them back
// (sessionLeft). Whether a stop judges a recorded book is told by the
// book's ID, never by the path: a book left failing by an earlier stop of
// the session, that this stop does not judge, is named with its gates and
// where its work tree is now, or, when the book is out of reach (its
// repository moved or removed, another one at its path), with the gates
// the record kept.

// outOfReach are the gates a session's record kept (verdicts.SessionBook
// Failing) for the projects whose verdict books are out of reach, named
// for them instead of their books' (unjudgedPending).
type outOfReach map[trust.Known][]string

// seeSession records the project at root, judged by this stop, as a book
// of session id (verdicts.SeeSession), with failing, the gates the answer
// leaves failing or dropped there.
func (h *hook) seeSession(id, root string, failing []string) {
	if id == "" || root == "" || place.MovedByEnv() {
		return
	}
	d, ok := gitdir.Find(root)
	if !ok {
		return
	}
	p, ok := placeOf(d, root)
	home := verdicts.StateHome(h.o.Getenv)
	// A state home inside the work tree is no place for a record of ours.
	if !ok || home == "" || within(home, d.TopLevel) {
		return
	}
	k := verdicts.KeyOf(p)
	b := verdicts.SessionBook{Key: k, Root: root, At: h.o.Now(), BookID: bookID(k), Failing: failing}
	if err := verdicts.SeeSession(home, id, b); err != nil {
		h.warn("cannot record the project session %s judged: %v", id, err)
	}
}

// bookID is the ID of the verdict book at k, "" when there is none or it
// cannot be read.
func bookID(k verdicts.Key) string {
	if b, err := verdicts.Read(k); err == nil && b != nil {
		return b.ID
	}
	return ""
}

// sessionLeft adds to found's unjudged projects each book an earlier stop
// of session id judged (verdicts.SessionBooks) that this stop does not
// judge (the book of found.Root, when ok, by its ID) and that holds gates
// failing or dropped: its work tree moved, removed, or its path taken by
// something else. Each is placed where its work tree is now, and Gone
// says what happened to it; those whose books are out of reach come with
// the gates the record kept.
func sessionLeft(ctx context.Context, stateHome, id string, found trust.Discovery, ok bool, now time.Time) (trust.Discovery, outOfReach) {
	left := outOfReach{}
	if place.MovedByEnv() {
		return found, left
	}
	var judged verdicts.Key
	judgedID := ""
	if ok {
		if d, found2 := gitdir.Find(found.Root); found2 {
			if p, in := placeOf(d, found.Root); in {
				judged = verdicts.KeyOf(p)
				judgedID = bookID(judged)
			}
		}
	}
	for _, b := range verdicts.SessionBooks(stateHome, id) {
		if ok && b.Of(judged, judgedID) || slices.ContainsFunc(found.Unjudged, func(k trust.Known) bool {
			key := verdicts.KeyOf(k.Place)
			return b.Of(key, bookID(key))
		}) {
			continue
		}
		k, reach, ok := bookNow(b)
		switch {
		case !ok:
			continue
		case !reach && len(b.Failing) > 0:
			left[k] = b.Failing
		case !reach || len(pendingOfRecord(ctx, k, now)) == 0:
			continue
		}
		found.Unjudged = append(found.Unjudged, k)
	}
	return found, left
}

// bookNow is the project of the book b, placed where its work tree is now
// (git's record of a linked worktree's path follows a move), with Gone
// saying how it left the session's view; reach is false when the book is
// no longer at its key (its repository moved or removed, another one made
// at its path): the project is then named where b's stop judged it. ok
// is false for a book whose place cannot be told (a git directory outside
// the common one).
func bookNow(b verdicts.SessionBook) (k trust.Known, reach, ok bool) {
	if filepath.IsAbs(b.Key.Worktree) {
		return trust.Known{}, false, false
	}
	prefix := ""
	if b.Key.Project != "." {
		prefix = b.Key.Project + "/"
	}
	oldTop := strings.TrimSuffix(b.Root, string(filepath.Separator)+filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	admin := filepath.Join(b.Key.CommonDir, filepath.FromSlash(b.Key.Worktree))
	p := place.Place{CommonDir: b.Key.CommonDir, GitDir: admin, TopLevel: oldTop, Prefix: prefix}
	earlier := fmt.Sprintf("an earlier stop of this session judged it at %s", runner.SafeText(b.Root))
	if b.BookID != "" && bookID(b.Key) != b.BookID {
		why := "its repository is no longer at " + runner.SafeText(filepath.Dir(b.Key.CommonDir)) + " (moved or removed)"
		if _, err := os.Lstat(b.Key.CommonDir); err == nil {
			why = "the repository at " + runner.SafeText(oldTop) + " now is not the one it was (removed, made anew or cloned there)"
			if _, err := verdicts.Read(b.Key); err != nil {
				// Its lock left behind: the same repository, its book
				// deleted or spoiled.
				why = "its verdict book cannot be used (" + runner.SafeText(err.Error()) + "; if no person did that, the agent did)"
			}
		}
		return trust.Known{Place: p, Gone: earlier + "; " + why + ", and its work was judged by no stop since"}, false, true
	}
	if b.Key.Worktree == "." {
		return mainNow(p, earlier), true, true
	}
	data, err := fsread.File(filepath.Join(admin, "gitdir"), 1<<12)
	if err != nil {
		return trust.Known{Place: p, Gone: earlier + "; git no longer knows its worktree (" +
			runner.SafeText(admin) + " is gone), its work judged by no stop since"}, true, true
	}
	p.TopLevel = filepath.Dir(strings.TrimSpace(string(data)))
	gone := goneDir(p.Root())
	switch {
	case gone != "":
		return trust.Known{Place: p, Gone: earlier + "; " + gone}, true, true
	case p.TopLevel != oldTop:
		return trust.Known{Place: p, Gone: earlier + "; its worktree was moved to " + runner.SafeText(p.TopLevel)}, true, true
	case !atPath(trust.Known{Place: p}):
		return trust.Known{Place: p, Gone: earlier + "; what is at that path now is not its worktree"}, true, true
	}
	return trust.Known{Place: p, Gone: earlier + "; this stop judges another project"}, true, true
}

// mainNow is the project at p, in a repository's main work tree whose
// book is where it was: Gone says whether its directory is still that
// work tree.
func mainNow(p place.Place, earlier string) trust.Known {
	p.GitDir = p.CommonDir
	k := trust.Known{Place: p}
	switch gone := goneDir(p.Root()); {
	case gone != "":
		k.Gone = earlier + "; " + gone
	case !atPath(k):
		k.Gone = earlier + "; what is at that path now is not its work tree"
	default:
		k.Gone = earlier + "; this stop judges another project"
	}
	return k
}

// atPath reports that the directory at k's root is in the work tree k's
// place says (the same git directories and top level), not in another one
// made at its path or in none.
func atPath(k trust.Known) bool {
	d, ok := gitdir.Find(k.Root())
	return ok && d.TopLevel == k.Place.TopLevel && d.CommonDir == k.Place.CommonDir &&
		(k.Place.GitDir == "" || d.GitDir == k.Place.GitDir)
}
