package run

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
)

// headMask names the paths where HEAD, what a push publishes, holds
// content that no passing run judged while the work tree the run judged
// (ep's snapshot) masks it. HEAD's content there is excused only by a tree
// a run passed on: the work tree judged now, the branch's last point seen
// to pass, the previous run's tree when it passed, the base branch's own
// points seen to pass, or what others put on the base (the commit the
// gates were trusted at, the base's remote-tracking copy when it is not
// the base itself). A tree a run failed on excuses nothing, nor does the
// local base branch, which the agent can move.
//
// It asks git nothing in the steady stop: HEAD's tree comes with the refs
// the run resolved, a work tree equal to it masks nothing, and with HEAD
// where a previous run that passed left it only the paths that run
// recorded as masked are looked at again (a mask lasts until the work
// tree holds HEAD's content there, or HEAD moves). nil when nothing is
// masked or it cannot be told.
func headMask(ctx context.Context, p *project, b *begun, ep endPoint) []string {
	if !ep.snapped || b.rec == nil {
		return nil
	}
	refs, err := b.refs.get()
	if err != nil || refs.Head == "" || refs.HeadTree == "" || refs.Head != ep.head {
		return nil
	}
	ts, err := p.snap.taken.get()
	if err != nil || ts.tree.Tree == "" || ts.tree.Tree == refs.HeadTree {
		return nil
	}
	tree := ts.tree.Tree
	prev := b.rec.Book.Snapshot
	point, _ := b.rec.Book.VerifiedOn(ep.branch)
	passed := ""
	if prev != nil && prev.Passed && refs.Holds(prev.Ref) {
		passed = prev.Ref
	}
	if passed != "" && prev.Commit == refs.Head {
		// HEAD is where the previous run, which passed, judged it: what
		// it masked then, unless the work tree holds HEAD's content there
		// now.
		if len(prev.Masked) == 0 {
			return nil
		}
		return keptIn(ctx, p.root, refs.HeadTree, tree, prev.Masked)
	}
	masked, err := git.TreePaths(ctx, p.root, refs.HeadTree, tree)
	if err != nil {
		return nil
	}
	masked = scope.WithoutDir(masked, p.logRel)
	for _, other := range passedTrees(p, b, refs, passed, point.Commit) {
		if len(masked) == 0 {
			break
		}
		if masked = keptIn(ctx, p.root, refs.HeadTree, other, masked); masked == nil {
			return nil
		}
	}
	return masked
}

// passedTrees are the commits whose trees excuse what HEAD holds (see
// headMask), the previous run's when it passed (prev) and the branch's
// point first, each once.
func passedTrees(p *project, b *begun, refs git.Refs, prev, point string) []string {
	out := []string{prev, point, p.opts.StartPoint}
	if refs.Remote != refs.Base || !strings.Contains(p.base, "/") {
		out = append(out, refs.Remote)
	}
	var own []string
	for name, pt := range b.rec.Book.Verified {
		if namesBranch(p.base, name) {
			own = append(own, pt.Commit)
		}
	}
	slices.Sort(own)
	out = append(out, own...)
	seen := map[string]bool{"": true, git.EmptyTree: true}
	return slices.DeleteFunc(out, func(c string) bool {
		if seen[c] {
			return true
		}
		seen[c] = true
		return false
	})
}

// keptIn is the paths of among where tree from and tree to differ (nil
// when none does or git cannot tell).
func keptIn(ctx context.Context, root, from, to string, among []string) []string {
	differ, err := git.TreePaths(ctx, root, from, to)
	if err != nil {
		return nil
	}
	var out []string
	for _, path := range among {
		if _, ok := slices.BinarySearch(differ, path); ok {
			out = append(out, path)
		}
	}
	return out
}

// maskedNote says what HEAD holds that the work tree masks (ep.masked),
// at most maxLimitPaths of the paths named.
func maskedNote(ep endPoint) string {
	head := ep.head
	if len(head) > 12 {
		head = head[:12]
	}
	return fmt.Sprintf("what HEAD (%s) holds in %d path(s) (%s), which the work tree masks: "+
		"no run passed on that content, and a push of HEAD publishes it",
		head, len(ep.masked), listed(ep.masked))
}
