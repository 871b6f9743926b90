package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// maxLimitPaths bounds the changed paths an answer at the retry limit
// names; the rest are counted.
const maxLimitPaths = 5

// sinceLastRun says what an agent's stop at the retry limit leaves
// unjudged: no gate runs there, so whatever changed since the last run
// that ran them (book.Snapshot, the work tree it judged) is named, by the
// identity the interval and the result cache compare (workSince: the
// repositories inside the work tree by file, what links lead to outside
// it, a same-second edit), never left to the failures that run saw, which
// may have been fixed while others broke. The work tree is the run's own
// snapshot (p.snap), taken in the kept index (about one `git status`). It is never "": what cannot be
// compared is the work tree as it is.
func sinceLastRun(ctx context.Context, p *project, book *verdicts.Book) string {
	const why = ": the retry limit was reached, so no gate ran on it"
	snap := book.Snapshot
	if snap == nil || snap.Ref == "" {
		return "the work tree as it is now" + why
	}
	// The run's own snapshot: a second one, taken while the run's holds
	// the kept index, would take a temporary index of every file.
	taken, err := p.snap.taken.get()
	if err != nil {
		return "the work tree as it is now" + why
	}
	w, err := workSince(ctx, p.root, snap.Ref, snap.Key, nil, taken.tree)
	since := fmt.Sprintf("since run %d, the last that ran the gates", snap.Run)
	switch {
	case err != nil:
		return "the work tree as it is now, which cannot be compared with run " + fmt.Sprint(snap.Run) + why
	case !w.Changed():
		return "nothing changed " + since + why
	}
	return w.told(since) + why
}

// told says what w says changed since (the run it was judged by): the
// paths (at most maxLimitPaths, the rest counted), what links lead to,
// what cannot be compared whole.
func (w workChanges) told(since string) string {
	var what []string
	if n := len(w.Paths); n > 0 {
		what = append(what, fmt.Sprintf("%d path(s) changed %s (%s)", n, since, listed(w.Paths)))
	}
	if w.ReachMoved {
		through := ""
		if len(w.Reaching) > 0 {
			through = " (through " + listed(w.Reaching) + ")"
		}
		what = append(what, "a file a symbolic link leads to, outside the work tree or ignored in it, changed "+since+through)
	}
	if w.Unheld != "" {
		what = append(what, "the work tree cannot be compared whole ("+w.Unheld+")")
	}
	if len(what) == 0 {
		what = append(what, "what the gates can read in the work tree changed "+since)
	}
	return strings.Join(what, "; ")
}

// listed lists items, at most maxLimitPaths, the rest counted.
func listed(items []string) string {
	named := items[:min(len(items), maxLimitPaths)]
	list := strings.Join(named, ", ")
	if more := len(items) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}
