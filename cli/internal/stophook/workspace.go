package stophook

import (
	"fmt"
	"slices"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A session's directory may be a workspace above several repositories.
// What a stop judged in one of them is kept in that repository
// (verdicts.SeeJudged, SeeReach), which a search from another one, or
// from a directory in no repository, never opens. So the projects judged
// from such a directory are also kept in a per-user record of the
// directory (verdicts.SeeWorkspace), and every stop from it reads them
// back (recall): a project the agent left behind by moving the input's
// directory is judged when no other is found, and named when another is.

// recalledFrom is the hookproto.Project From of a project judged for
// want of any other, because an earlier stop from the session's directory
// judged it.
const recalledFrom = "the project an earlier stop from the session's directory judged"

// recall adds to found the trusted projects that stops from the session's
// directory dir judged in other repositories (verdicts.WorkspaceProjects)
// and that found neither judges nor names: with no project found (ok
// false), the most recent of them is judged (recalled true), and the rest
// are left unjudged, to be named. A project is recalled only while it is
// below dir, in a git work tree, with its trust record or its verdict
// book (recordedProject).
func recall(stateHome, dir string, found trust.Discovery, ok bool) (trust.Discovery, bool, bool) {
	if place.MovedByEnv() {
		return found, ok, false
	}
	var extra []trust.Known
	for _, j := range verdicts.WorkspaceProjects(stateHome, dir) {
		root := j.Project
		named := func(k trust.Known) bool { return k.Root() == root }
		if root == found.Root || !within(root, dir) || slices.ContainsFunc(found.Unjudged, named) || slices.ContainsFunc(extra, named) {
			continue
		}
		if k, ok := recordedProject(root); ok {
			extra = append(extra, k)
		}
	}
	recalled := false
	if !ok && len(extra) > 0 {
		found.Root, extra, ok, recalled = extra[0].Root(), extra[1:], true, true
	}
	found.Unjudged = append(found.Unjudged, extra...)
	return found, ok, recalled
}

// recordedProject is the trusted project at root, as a place of the work
// tree holding it; false when root is in none, or has neither a usable
// trust record nor a verdict book (a project whose record was removed
// after stops judged it is still recalled: the stop that judges it adopts
// HEAD's configuration and says so).
func recordedProject(root string) (trust.Known, bool) {
	d, ok := gitdir.Find(root)
	if !ok {
		return trust.Known{}, false
	}
	p, ok := placeOf(d, root)
	if !ok {
		return trust.Known{}, false
	}
	if rec, err := trust.ReadRecord(p); rec != nil && err == nil {
		return trust.Known{Place: p}, true
	}
	if b, err := verdicts.Read(verdicts.KeyOf(p)); b != nil && err == nil {
		return trust.Known{Place: p}, true // judged before, its record removed since
	}
	return trust.Known{}, false
}

// seeWorkspace records the project of s in the per-user record of the
// session's directory dir (verdicts.SeeWorkspace) when its configuration
// is trusted and it is below dir in a repository that does not hold dir:
// only such a project can be lost to a search from dir.
func (h *hook) seeWorkspace(dir string, s *site) {
	if s.trust == nil || s.source == trust.SourceNone || place.MovedByEnv() || !within(s.root, dir) {
		return
	}
	if d, ok := gitdir.Find(s.root); !ok || within(dir, d.TopLevel) {
		return
	}
	if err := verdicts.SeeWorkspace(verdicts.StateHome(h.o.Getenv), dir, s.root, h.o.Now()); err != nil {
		h.warn("cannot record the project judged from %s: %v", dir, err)
	}
}

// recalledNote says why a recalled project is judged.
func recalledNote(where hookproto.Project, root string) string {
	return fmt.Sprintf("No project is at or above %s, the session's directory, nor at the input's directory; this stop judges %s, "+
		"which an earlier stop from that directory judged, so that its work is not left behind.",
		runner.SafeText(where.Dir), runner.SafeText(root))
}
