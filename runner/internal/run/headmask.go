package run

import (
	"context"
	"fmt"
	"slices"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
)

// headMask names the paths where HEAD, what a push publishes, holds
// content that no stop judged while the work tree the run judged (ep's
// snapshot) masks it: HEAD's content there is neither the work tree's,
// nor that of the work tree the previous run judged, nor the base
// branch's. It asks git nothing in the steady stop: HEAD's tree comes
// with the refs the run resolved, a work tree equal to it masks nothing,
// and with HEAD where the previous run left it only the paths that run
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
	if prev != nil && prev.Commit == refs.Head && refs.Holds(prev.Ref) {
		// HEAD is where the previous run judged it: what it masked then,
		// unless the work tree holds HEAD's content there now.
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
	for _, other := range []string{refs.SnapshotTree, refs.Base} {
		if other == "" || len(masked) == 0 {
			continue
		}
		if masked = keptIn(ctx, p.root, refs.HeadTree, other, masked); masked == nil {
			return nil
		}
	}
	return masked
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
		"neither this run, the previous one nor the base branch held that content, and a push of HEAD publishes it",
		head, len(ep.masked), listed(ep.masked))
}
