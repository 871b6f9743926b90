package run

import (
	"context"
	"fmt"
	"maps"
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
// the base itself and holds no commit of the agent's, see remoteOwn). A
// tree a run failed on excuses nothing, nor does the local base branch,
// which the agent can move, nor HEAD itself where the base holds it and a
// point anchors the commits up to it (anchoredBelow). staged are the same
// of the user's index, what the next commit records, where it holds other
// content than HEAD (index identifies what it stages, "" when it cannot be read).
//
// It asks git nothing in the steady stop: HEAD's tree comes with the refs
// the run resolved, a work tree equal to it masks nothing, the index is
// read as a file, and with HEAD (and the index) where a previous run that
// passed left them only the paths that run recorded as masked are looked
// at again (a mask lasts until the work tree holds the content there, or
// HEAD or the index moves); with the index as that run left it and nothing
// staged named then, neither index file is read. nil when nothing is masked or it cannot be
// told. Repositories inside the work tree are not looked into.
func headMask(ctx context.Context, p *project, b *begun, ep endPoint) (head, staged []string, index string) {
	if !ep.snapped || b.rec == nil {
		return nil, nil, ""
	}
	refs, err := b.refs.get()
	if err != nil || refs.Head == "" || refs.HeadTree == "" || refs.Head != ep.head {
		return nil, nil, ""
	}
	ts, err := p.snap.taken.get()
	if err != nil || ts.tree.Tree == "" {
		return nil, nil, ""
	}
	prev := b.rec.Book.Snapshot
	point, _ := b.rec.Book.VerifiedOn(ep.branch)
	passed := ""
	if prev != nil && prev.Passed && refs.Holds(prev.Ref) {
		passed = prev.Ref
	}
	// steady: HEAD is where the previous run, which passed, judged it.
	steady := passed != "" && prev.Commit == refs.Head
	excuses := func() []string {
		trees := passedTrees(p, b, refs, passed, point.Commit)
		if refs.Remote != "" && slices.Contains(trees, refs.Remote) && remoteOwn(ctx, p, b, refs.Remote, point.Commit) {
			trees = slices.DeleteFunc(trees, func(c string) bool { return c == refs.Remote })
		}
		// What HEAD holds through the base (their merge base) is not the
		// mask's to name: those commits are anchored, or named as commits of
		// the base no stop judged (baseMovedOver, the unanchored note). A
		// base that holds HEAD (the agent on the base branch, or the base
		// moved onto its work) has HEAD for the merge base: when a point
		// anchors the commits up to it, they are the agent's since that
		// point (reachBack), judged only as the work tree holds them, and
		// HEAD excuses nothing of its own.
		if refs.Base != "" {
			if mb, err := git.MergeBase(ctx, p.root, refs.Head, refs.Base); err == nil && mb != "" && !slices.Contains(trees, mb) &&
				(mb != refs.Head || !anchoredBelow(ctx, p, b, refs, point.Commit)) {
				trees = append(trees, mb)
			}
		}
		return trees
	}
	var was []string
	if steady {
		was = prev.Masked
	}
	pfx := ts.tree.Prefix()
	head = maskedHead(ctx, p, refs, ts.tree.Tree, pfx, steady, was, excuses)
	if steady && len(prev.Staged) == 0 && ts.tree.StagedAsBefore(prev.Index) {
		// The index stages what it did when that run named nothing staged:
		// whatever is apart now, none of it was named (the branch below),
		// and reading both indexes would say so again.
		return head, nil, prev.Index
	}
	apart, index, err := ts.tree.StagedApart()
	if err != nil || len(apart) == 0 {
		return head, nil, index
	}
	if steady && prev.Index == index {
		// The index as that run left it: what it named then, where the
		// work tree does not hold the staged content now.
		return head, inBoth(prev.Staged, sortedKeys(apart)), index
	}
	return head, maskedStaged(ctx, p, refs, apart, pfx, excuses), index
}

// remoteOwn reports whether the base's remote-tracking copy (remote)
// holds a commit this repository made (git.MadeHere) that no anchor holds
// (the branch's last point seen to pass, the commit the gates were trusted
// at, a point of the base seen to pass): the agent's work published to the
// remote (by URL, or through another remote) and fetched back, which the
// copy then holds as no one else's. Such a copy excuses nothing. With no
// anchor at all the copy is the base's, as cloned; where git cannot tell,
// it excuses nothing.
func remoteOwn(ctx context.Context, p *project, b *begun, remote, point string) bool {
	anchors := append([]string{point}, baseAnchors(p, b)...)
	fromStart := slices.Contains(anchors, git.EmptyTree)
	anchors = slices.DeleteFunc(anchors, func(c string) bool { return c == "" || c == git.EmptyTree })
	if len(anchors) == 0 && !fromStart {
		return false
	}
	over, err := git.Unreached(ctx, p.root, remote, anchors)
	if err != nil || len(over) == 0 {
		return err != nil
	}
	made, err := git.MadeHere(ctx, p.root, over)
	return err != nil || slices.ContainsFunc(over, func(c string) bool { return made[c] })
}

// anchoredBelow reports whether a point anchors the commits up to HEAD,
// as a run whose base holds HEAD reaches back to one (pointOf): the
// branch's last point seen to pass (point), or the commit the gates were
// trusted at or a point of the base branch seen to pass that HEAD is or
// descends from. The commits since are the agent's, judged only as the
// work tree holds them; with no such point, all of them are named as
// unanchored instead (the unanchored note), and HEAD is taken as the
// base's.
func anchoredBelow(ctx context.Context, p *project, b *begun, refs git.Refs, point string) bool {
	if point != "" {
		return true
	}
	for _, c := range baseAnchors(p, b) {
		if c == "" {
			continue
		}
		if ok, err := descends(ctx, p, c, refs.Head); err == nil && ok {
			return true
		}
	}
	return false
}

// baseAnchors are the commits that anchor the base's history: the commit
// the gates were trusted at and the base branch's points seen to pass
// ("" among them for none).
func baseAnchors(p *project, b *begun) []string {
	anchors := []string{p.opts.StartPoint}
	for name, pt := range b.rec.Book.Verified {
		if namesBranch(p.base, name) {
			anchors = append(anchors, pt.Commit)
		}
	}
	return anchors
}

// maskedHead is headMask's paths of HEAD: with HEAD where a passing run
// left it (steady), those of was (that run's) where the work tree does
// not hold HEAD's content now; else every path of the project (pfx)
// where it does not, less those a tree of excuses holds as HEAD does.
func maskedHead(ctx context.Context, p *project, refs git.Refs, tree, pfx string, steady bool, was []string, excuses func() []string) []string {
	if tree == refs.HeadTree || steady && len(was) == 0 {
		return nil
	}
	if steady {
		return keptIn(ctx, p.root, refs.HeadTree, tree, was)
	}
	masked, added, err := git.TreePathsAdded(ctx, p.root, refs.HeadTree, tree)
	if err != nil {
		return nil
	}
	masked = ofProject(masked, pfx, p.logRel)
	for _, other := range excuses() {
		if len(masked) == 0 {
			break
		}
		if masked = keptIn(ctx, p.root, refs.HeadTree, other, masked); masked == nil {
			return nil
		}
	}
	if absent := inBoth(added, masked); len(absent) > 0 && refs.Base != "" {
		// HEAD holds nothing where the work tree holds a file: a push
		// publishes no content there, only a deletion, and only where the
		// base branch holds the file (the local one included: a file the
		// agent deleted there too publishes no content either).
		kept := keptIn(ctx, p.root, refs.HeadTree, refs.Base, absent)
		masked = slices.DeleteFunc(masked, func(path string) bool {
			_, absentHere := slices.BinarySearch(absent, path)
			_, keptHere := slices.BinarySearch(kept, path)
			return absentHere && !keptHere
		})
	}
	return masked
}

// maskedStaged is headMask's paths of the index: of those where it
// stages what the work tree judged does not hold (apart, with what it
// stages) under the project (pfx), those where HEAD holds other content (HEAD's own is
// maskedHead's to name) and no tree of excuses holds what it stages.
func maskedStaged(ctx context.Context, p *project, refs git.Refs, apart map[string]git.TreeEntry, pfx string, excuses func() []string) []string {
	paths := ofProject(sortedKeys(apart), pfx, p.logRel)
	for _, other := range append([]string{refs.HeadTree}, excuses()...) {
		if len(paths) == 0 {
			return nil
		}
		held, err := git.TreeEntries(ctx, p.root, other, paths)
		if err != nil {
			return nil
		}
		paths = slices.DeleteFunc(paths, func(path string) bool {
			h, s := held[path], apart[path]
			return h.ID == s.ID && h.Mode == s.Mode
		})
	}
	return paths
}

// ofProject is the paths (relative to the top level, sorted) under the
// project root (prefix, "" or "dir/") and outside its log directory
// (logRel, relative to the root): only those the project's gates judge.
func ofProject(paths []string, prefix, logRel string) []string {
	out := slices.DeleteFunc(slices.Clone(paths), func(path string) bool { return !strings.HasPrefix(path, prefix) })
	if logRel != "" {
		out = scope.WithoutDir(out, prefix+logRel)
	}
	return out
}

// sortedKeys is m's keys, sorted.
func sortedKeys(m map[string]git.TreeEntry) []string {
	return slices.Sorted(maps.Keys(m))
}

// inBoth is the paths of sorted a that sorted b holds too.
func inBoth(a, b []string) []string {
	var out []string
	for _, path := range a {
		if _, ok := slices.BinarySearch(b, path); ok {
			out = append(out, path)
		}
	}
	return out
}

// passedTrees are the commits whose trees excuse what HEAD holds (see
// headMask), the previous run's when it passed (prev) and the branch's
// point first, each once. A point at git's empty tree (the gates trusted,
// or seen to pass, before the first commit) holds no content and excuses
// nothing: it is left out.
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

// maskNotes are the notes of what the work tree masks at ep: in HEAD,
// then in the index.
func maskNotes(ep endPoint) []string {
	var notes []string
	if len(ep.masked) > 0 {
		notes = append(notes, maskedNote(ep))
	}
	if len(ep.staged) > 0 {
		notes = append(notes, stagedNote(ep))
	}
	return notes
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

// stagedNote says what the index stages that the work tree masks
// (ep.staged), at most maxLimitPaths of the paths named.
func stagedNote(ep endPoint) string {
	return fmt.Sprintf("what the index stages in %d path(s) (%s), which the work tree masks: "+
		"no run passed on that content, and the next git commit records it",
		len(ep.staged), listed(ep.staged))
}
