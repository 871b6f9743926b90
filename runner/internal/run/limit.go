package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// maxLimitPaths bounds the changed paths an answer at the retry limit
// names; the rest are counted.
const maxLimitPaths = 5

// sinceLastRun says what an agent's stop at the retry limit leaves
// unjudged: no gate runs there, so whatever changed since the last run
// that ran them (book.Snapshot, the work tree it judged) is named, by the
// paths that differ from that run's snapshot (one snapshot of the work
// tree in the kept index, about one `git status`), never left to the
// failures that run saw, which may have been fixed while others broke.
// It is never "": what cannot be compared is the work tree as it is.
func sinceLastRun(ctx context.Context, p *project, book *verdicts.Book) string {
	const why = ": the retry limit was reached, so no gate ran on it"
	snap := book.Snapshot
	if snap == nil || snap.Ref == "" {
		return "the work tree as it is now" + why
	}
	var excludes []string
	if p.logRel != "" {
		excludes = append(excludes, p.logRel)
	}
	ts, err := git.NewTreeSnapshot(ctx, p.root, excludes...)
	if err != nil {
		return "the work tree as it is now" + why
	}
	defer ts.Close()
	paths, err := git.TreePaths(ctx, p.root, snap.Ref, ts.Tree)
	since := fmt.Sprintf("since run %d, the last that ran the gates", snap.Run)
	switch {
	case err != nil:
		return "the work tree as it is now, which cannot be compared with run " + fmt.Sprint(snap.Run) + why
	case len(paths) == 0:
		return "nothing changed " + since + why
	}
	named := paths[:min(len(paths), maxLimitPaths)]
	list := strings.Join(named, ", ")
	if n := len(paths) - len(named); n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("%d path(s) changed %s (%s)%s", len(paths), since, list, why)
}
