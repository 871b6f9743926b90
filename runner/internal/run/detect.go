package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
)

// changes is what detect found.
type changes struct {
	// spec is the run's narrowed change scope: the changes since the
	// previous run's snapshot in verification mode (when there are any),
	// else full. Only a review gate that judged that snapshot may be given
	// it (see reviewRunner).
	spec gate.DiffSpec
	// full is the whole change set: the scope of the mode chosen by the
	// flags (local, CI, ...), or the previous run's change set when only it
	// is left (previousChanges). A gate that did not judge the previous
	// run's snapshot is given full, as a run without pending logs would.
	full gate.DiffSpec
	// files are the changed paths.
	files []string
	// fullFiles are the paths full lists (files less the ones only since
	// lists): what a review given full must show or name.
	fullFiles []string
	// since are the paths changed since the previous run's snapshot
	// (verification mode only).
	since []string
	// from is the point the change set reached back to (reachBack), ""
	// for none: recorded in this run's snapshot, and where an episode that
	// opens with this run begins.
	from string
	// unanchored says what the run cannot look at (see reachBack), "" for
	// nothing.
	unanchored string
	// base is the change set whose base commit a failed check with
	// baseline: true is compared on: full's, except on the base branch
	// itself, whose merge base is HEAD (see reachBackTo), and in a
	// verification run whose base branch moved since its episode began,
	// where the episode began (keepEpisodeBase).
	base gate.DiffSpec
	// baseMoved names the commit the base branch's merge base moved to since
	// the episode began, when base was kept at the episode's ("" else).
	baseMoved string
}

// detect returns the change scope of the run and its changed files, those
// of the flags' scope as the run lists them (begun.changed), and says how
// many; none stops the run (stopNoChanges, with the changes). In
// verification mode the files changed since the previous run's snapshot
// are added to the normal change set (so committing a non-fix never hides a
// failure, and the gates that apply are those of the whole change set), and
// the reviews that judged that snapshot may see only the changes since it.
func detect(ctx context.Context, s *services, p *project, b *begun) (*changes, error) {
	c, err := detectChanges(ctx, s, p, b)
	if err != nil {
		return nil, err
	}
	if len(c.files) == 0 {
		return c, stopNoChanges
	}
	s.cons.Printf(lineChangedFiles, len(c.files))
	return c, nil
}

// detectChanges is detect before the count: the changes of the flags'
// scope, with those since the previous run's snapshot in a verification
// run (sinceSnapshot), and those since the point the run must reach back
// to (reachBack).
func detectChanges(ctx context.Context, s *services, p *project, b *begun) (*changes, error) {
	spec := p.diffSpec()
	ch, err := b.changed.get()
	if err != nil {
		return nil, err
	}
	for _, w := range ch.Warnings {
		s.cons.Printf("%s", w)
	}
	c := &changes{spec: spec, full: spec, base: spec, files: scope.WithoutDir(ch.Files, p.logRel)}
	c.fullFiles = c.files
	from := ""
	if spec.Mode == gate.DiffLocal && p.opts.BaseBranch == "" {
		if from, c.unanchored, err = b.reachBack(ctx, p); err != nil {
			return nil, err
		}
		if c.unanchored != "" {
			s.cons.Printf(lineWarning, "not verified: "+c.unanchored)
		}
	}
	if from == "" && (!b.verification || b.prev.WorkingTreeRef == "") {
		return c, nil
	}
	tree, err := p.snap.tree()
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) || ctx.Err() != nil || b.verification {
			// A verification run that cannot tell what changed since the
			// failures it verifies could only miss a revert or a fix: it
			// ends as git failing, and the next run verifies them.
			return nil, err
		}
		s.cons.Printf(lineWarning, fmt.Sprintf("cannot snapshot the work tree, verifying all changes: %v", err))
		return c, nil
	}
	if c.full.Mode != gate.DiffCommit && c.full.Mode != gate.DiffCI {
		c.full.WorkTree, c.full.ReadTree = tree, p.snap.readTree()
	}
	c.spec, c.base = c.full, c.full
	if err := c.sinceSnapshot(ctx, s, p, b, tree); err != nil {
		return nil, err
	}
	if from != "" {
		refs, _ := b.refs.get()
		if err := c.reachBackTo(ctx, p, from, tree, refs); err != nil {
			return nil, err
		}
		if loc, err := p.loc.get(); err == nil && c.from != "" && (namesBranch(p.base, loc.Branch) || !b.verification && !remoteHolds(ctx, p, refs, false)) {
			c.base = c.full
		}
	}
	c.keepEpisodeBase(ctx, p, b, from)
	return c, nil
}

// remoteHolds reports whether the base branch's remote-tracking copy holds
// HEAD (and, with past, moved past it: the work's pull request merged on
// the remote and fetched), holding a commit this repository did not make
// (othersOnRemote). A base that holds HEAD by a merge or a move of
// the local branch alone, or whose copy holds only the agent's own commits
// published and fetched back, holds the agent's own work: a failed check with
// baseline: true is compared with the point the change set reached back
// to, not with it (in a verification run, with where the episode began
// unless the pull request merged: keepEpisodeBase).
func remoteHolds(ctx context.Context, p *project, refs git.Refs, past bool) bool {
	if refs.Head == "" || refs.Remote == "" || past && refs.Remote == refs.Head {
		return false
	}
	in, err := isAncestor(ctx, p.root, refs.Head, refs.Remote)
	return err == nil && in && othersOnRemote(ctx, p, refs)
}

// othersOnRemote reports whether the base's remote-tracking copy, which
// holds HEAD or merged some of the work, holds a commit this repository
// did not make (git.MadeHere) where it parts from HEAD: one HEAD does not
// hold, or HEAD itself when the copy is at HEAD. A copy that holds only
// the agent's own commits there (its work published to the remote by URL
// or through another remote, and fetched back) is no one else's merge of
// the work.
func othersOnRemote(ctx context.Context, p *project, refs git.Refs) bool {
	over, err := git.Unreached(ctx, p.root, refs.Remote, []string{refs.Head})
	if err != nil {
		return false
	}
	if len(over) == 0 {
		over = []string{refs.Head}
	}
	made, err := git.MadeHere(ctx, p.root, over)
	return err == nil && slices.ContainsFunc(over, func(c string) bool { return !made[c] })
}

// remoteMerged reports whether the base branch's remote-tracking copy
// merged some of the work and then moved on without it: it holds a commit
// HEAD does not, and its merge base with HEAD is past from, where the
// episode began (the pull request merged on the remote and fetched, and
// the agent committed or edited on since), holding a commit this
// repository did not make (othersOnRemote). A local base moved onto the
// work, while the remote stayed where it was, is no such merge.
func remoteMerged(ctx context.Context, p *project, refs git.Refs, from string) bool {
	if refs.Head == "" || refs.Remote == "" || refs.Remote == refs.Head {
		return false
	}
	if in, err := isAncestor(ctx, p.root, refs.Remote, refs.Head); err != nil || in {
		return false
	}
	mb, err := git.MergeBase(ctx, p.root, refs.Head, refs.Remote)
	return err == nil && mb != "" && mb != from && othersOnRemote(ctx, p, refs)
}

// remotePulled reports whether HEAD came to hold the base branch's
// remote-tracking copy after it moved past from, where the episode began,
// with a commit this repository did not make (git.MadeHere): the work's
// pull request merged on the remote, fetched and pulled into HEAD (a
// fast-forward, commits on top, a merge of it). A copy that holds since
// from only the agent's own commits (its work pushed and fetched back) is
// no one else's merge of the work.
func remotePulled(ctx context.Context, p *project, refs git.Refs, from string) bool {
	if refs.Head == "" || refs.Remote == "" || refs.Remote == from {
		return false
	}
	if in, err := isAncestor(ctx, p.root, refs.Remote, refs.Head); err != nil || !in {
		return false
	}
	since, err := git.Unreached(ctx, p.root, refs.Remote, []string{from})
	if err != nil || len(since) == 0 {
		return false
	}
	made, err := git.MadeHere(ctx, p.root, since)
	return err == nil && slices.ContainsFunc(since, func(c string) bool { return !made[c] })
}

// keepEpisodeBase keeps, in a verification run that reached back to where
// its episode began (from), the base of a failed check with baseline:
// true at that point when the base branch's merge base moved since
// (fast-forwarded or forced onto the work, the work reset or merged onto
// it): a base that came to hold the commits a pending failure was found on
// is no evidence that the failure is not the agent's. A base branch whose
// remote-tracking copy merged HEAD (it descends from HEAD and moved past
// it: the work's pull request merged on the remote and fetched, see
// staleness.headMerged), that merged the work and moved on
// (remoteMerged), or that HEAD came to hold since (remotePulled: the merge
// pulled), is the base as it is; a merge of HEAD into the local base
// alone, made while the failures were pending, is one more way of moving
// the base onto the work.
func (c *changes) keepEpisodeBase(ctx context.Context, p *project, b *begun, from string) {
	e := b.rec.Book.Episode
	if !b.verification || e == nil || from == "" || from != e.Base || from == git.EmptyTree {
		return
	}
	now, err := git.BaseCommit(ctx, p.root, c.base)
	if err == nil && now == from {
		return
	}
	if refs, rerr := b.refs.get(); rerr == nil && refs.BaseErr == nil && (remoteHolds(ctx, p, refs, true) || remoteMerged(ctx, p, refs, from) || remotePulled(ctx, p, refs, from)) {
		return
	}
	c.base = gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: p.base, FixBase: from}
	c.baseMoved = shortID(now)
	if err != nil {
		c.baseMoved = "a commit git could not name"
	}
}

// sinceSnapshot adds, in a verification run, the files changed since the
// previous run's snapshot of the work tree to the change set (so that
// committing a non-fix never hides a failure), and narrows the change
// scope to them when there are any: the reviews that judged that snapshot
// may see only those (reviewRunner).
func (c *changes) sinceSnapshot(ctx context.Context, s *services, p *project, b *begun, tree string) error {
	prev := b.prev
	if !b.verification || prev.WorkingTreeRef == "" {
		return nil
	}
	from := prev.WorkingTreeRef
	refs, _ := b.refs.get()
	if refs.NothingSince(from, tree, p.snap.listing()) {
		return nil // the previous run's snapshot is this tree
	}
	ok, err := refs.Holds(from), error(nil)
	if !ok {
		ok, err = git.ObjectExists(ctx, p.root, from)
	}
	if err != nil {
		return err
	}
	if !ok {
		// Whatever the failures pending were judged on, every file now
		// is a change since: none is left out, not even one put back.
		s.cons.Printf(lineWarning, fmt.Sprintf("the previous run's working tree snapshot %s is gone; verifying all changes", from))
		from = git.EmptyTree
	}
	fix := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: p.base, FixBase: from, WorkTree: tree, ReadTree: p.snap.readTree()}
	since, err := git.ChangedFilesIn(ctx, p.root, fix, p.snap.listing())
	if err != nil {
		return err
	}
	c.since = scope.WithoutDir(since.Files, p.logRel)
	c.files = scope.Union(c.files, c.since)
	// No snapshot (git's empty tree, see unsnapped): no review judged one,
	// so none is narrowed to the changes since it.
	if len(c.since) > 0 && !p.opts.Uncommitted && from != git.EmptyTree {
		c.spec = fix
	}
	return nil
}

// reachBackTo adds the files changed since from (a commit or tree, see
// begun.reachBack) to the change set. When that finds files the flags'
// scope does not hold (refs moved: the work was committed onto the base
// branch, the base moved onto it, the first commit was made), the whole
// change set, which every gate that did not judge the previous snapshot
// is given (and every review whose entry point did not change since it:
// it verifies its pending violations on it), becomes the changes since
// from. A failed check with baseline: true is still compared with the
// base branch as it is when its remote-tracking copy merged the work (a
// failure merged into it is pre-existing), else with from (the caller
// decides, see remoteHolds).
func (c *changes) reachBackTo(ctx context.Context, p *project, from, tree string, refs git.Refs) error {
	if refs.NothingSince(from, tree, p.snap.listing()) {
		return nil // from is a snapshot of this very tree: nothing to add
	}
	spec := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: p.base, FixBase: from, WorkTree: tree, ReadTree: p.snap.readTree()}
	ch, err := git.ChangedFilesIn(ctx, p.root, spec, p.snap.listing())
	if err != nil {
		return err
	}
	files := scope.WithoutDir(ch.Files, p.logRel)
	if len(scope.Union(c.files, files)) == len(c.files) {
		return nil
	}
	if c.spec == c.full {
		c.spec = spec
	}
	c.from, c.full, c.fullFiles = from, spec, files
	c.files = scope.Union(c.files, files)
	return nil
}

// reachBack is the point the run's change set must reach back to so that
// none of the agent's work hides behind a moved ref, "" for none; asked
// only of a run against the configured base branch (-u and -b choose their
// own change set). A verification run reaches back to where its episode
// began, whatever moved since (HEAD, the base, the first commit). Any
// other run whose base branch holds HEAD (the agent committed on the base
// branch itself, moved the base onto its work, or has not committed on its
// branch yet) reaches back to the last point the gates were seen to pass
// on the branch, else to the commit HEAD named when the gates were trusted
// (Options.StartPoint) when HEAD descends from it: the work committed
// since is the agent's, not the base's own. With neither, unanchored says
// what the run cannot look at (the commits up to HEAD), for the person to
// be told once. A point that no longer exists is none. A detached HEAD is
// a branch without a point of its own.
func (b *begun) reachBack(ctx context.Context, p *project) (from, unanchored string, err error) {
	book := b.rec.Book
	loc, err := p.loc.get()
	if err != nil {
		return "", "", nil
	}
	// A detached HEAD has no point of its own (none is marked there): it
	// reaches back, or names what it cannot, by the base's points alone.
	if e := book.Episode; b.verification && e != nil && e.Branch == loc.Branch {
		from = e.Base
	} else if !b.verification {
		in, err := b.headInBase(ctx, p)
		if err != nil {
			return "", "", err
		}
		if !in {
			moved, err := b.baseMovedOver(ctx, p, loc.Branch)
			return "", moved, err
		}
		if from, unanchored, err = b.pointOf(ctx, p, loc.Branch); from == "" || err != nil {
			return "", unanchored, err
		}
	}
	if from == "" || from == git.EmptyTree {
		return from, "", nil
	}
	if refs, err := b.refs.get(); err == nil && refs.Head == from && !b.verification {
		// The point is HEAD: nothing was committed since it, and the
		// changes against a base that holds HEAD are all the rest.
		return "", "", nil
	}
	if refs, err := b.refs.get(); err == nil && refs.Holds(from) {
		return from, "", nil // read with the refs: it exists
	}
	ok, err := git.ObjectExists(ctx, p.root, from)
	if err != nil || !ok {
		return "", "", err
	}
	return from, "", nil
}

// baseMovedOver says what a run whose base branch does not hold HEAD
// cannot look at, "" for nothing: the commits HEAD holds through the base
// (reachable from the merge base of HEAD and the base, so the change set
// against the base leaves them out) that no stop judged and nobody but the
// agent can have put there. Judged are those the branch's last point seen
// to pass holds (the point is a snapshot of the work tree on HEAD then);
// put there by others, those the base branch held at one of its own points
// seen to pass or when the gates were trusted (Options.StartPoint), and
// those its remote-tracking copy holds, fetched, unless that copy is the
// base itself (origin/main) and it moved over the branch's point (then git
// cannot tell a fetch from a ref moved by hand). A point at git's empty
// tree (seen to pass, or the gates trusted, before the first commit) held
// none: every commit since is one of the rest. The rest, a commit made on
// the local base and merged, rebased or branched from, is the agent's. Which of them
// the agent made git cannot say, so they are named, not judged; the next
// pass moves the branch's point past them, and they are named once.
func (b *begun) baseMovedOver(ctx context.Context, p *project, branch string) (string, error) {
	refs, err := b.refs.get()
	if err != nil || refs.Head == "" || refs.Base == "" {
		return "", nil
	}
	point, fromStart := "", false
	if pt, ok := b.rec.Book.VerifiedOn(branch); ok {
		point, fromStart = pt.Commit, pt.Commit == git.EmptyTree
	}
	trusted := []string{p.opts.StartPoint}
	for name, pt := range b.rec.Book.Verified {
		if name != branch && namesBranch(p.base, name) {
			trusted = append(trusted, pt.Commit)
		}
	}
	slices.Sort(trusted[1:])
	// A point at git's empty tree (seen to pass, or the gates trusted,
	// before the first commit) holds no commit, and anchors them all:
	// every commit is made after it.
	fromStart = fromStart || slices.Contains(trusted, git.EmptyTree)
	if point == git.EmptyTree {
		point = ""
	}
	trusted = slices.DeleteFunc(trusted, func(c string) bool { return c == "" || c == git.EmptyTree })
	if point == "" && len(trusted) == 0 && refs.Remote == "" && !fromStart {
		return unanchoredBase(p, branch), nil
	}
	q := movedQuestion{branch: branch, point: point, head: refs.Head, base: refs.Base, remote: refs.Remote, trusted: trusted,
		fromStart: fromStart, remoteBase: refs.Remote == refs.Base && strings.Contains(p.base, "/")}
	moved := func() (string, error) { return q.answer(ctx, p) }
	if loc, err := p.loc.get(); err == nil && p.cacheWanted() {
		// Asked at every stop of a branch not merged into its base: the
		// answer about the same commits is kept (cache.Ancestry).
		key := append([]string{point, refs.Head, refs.Base, refs.Remote, p.base, branch, strconv.FormatBool(fromStart)}, trusted...)
		return cache.NewAncestry(p.root, loc.CommonDir).Answer(ctx, "base holds unjudged commits", key, moved)
	}
	return moved()
}

// unanchoredBase is what a run on branch, which the base branch does not
// hold, cannot look at when nothing anchors the base's history: no point
// of the branch or of the base seen to pass, no trusted record's start
// point, no remote copy that tells the base's own commits apart. The
// commits HEAD holds through the base may be the agent's (committed on
// the base before it branched off); git cannot say which, so they are
// named, once (the unanchored note), as pointOf names a branch the base
// holds.
func unanchoredBase(p *project, branch string) string {
	then := "a pass of the gates on " + branch + " marks the point they are judged from"
	if !p.opts.Agent {
		then = "a run by hand marks no point over them"
	}
	return fmt.Sprintf("the commits of the base branch %s that %s holds: no point of %s or of %s was seen to pass "+
		"or recorded when its gates were trusted, so which of them are the agent's cannot be told, and the change set "+
		"against the base leaves them out (%s)", p.base, branch, branch, p.base, then)
}

// movedQuestion is what baseMovedOver asks of git: point is the branch's
// last point seen to pass ("" for none), head and base the commits HEAD
// and the base name, remote the base's remote-tracking copy's, trusted the
// base's own points and the start point (none of them git's empty tree).
type movedQuestion struct {
	branch, point, head, base, remote string
	trusted                           []string
	// fromStart is true when the branch's point, a point of the base or
	// the start point is git's empty tree: every commit is made after it,
	// so the base's history is anchored, at its beginning.
	fromStart bool
	// remoteBase is true when the base branch is its remote-tracking copy
	// itself (origin/main), not a local branch with one.
	remoteBase bool
}

// answer is baseMovedOver's answer, asked of git.
func (q movedQuestion) answer(ctx context.Context, p *project) (string, error) {
	mb, err := git.MergeBase(ctx, p.root, q.head, q.base)
	if err != nil || mb == "" {
		return "", err
	}
	was := ""
	if q.point != "" {
		if ok, err := git.ObjectExists(ctx, p.root, q.point); err != nil {
			return "", err
		} else if ok {
			if was, err = git.MergeBase(ctx, p.root, q.point, q.head); err != nil {
				return "", err
			}
		}
	}
	over := false // the base moved over where the branch was at its point
	if was != "" && was != mb {
		if over, err = isAncestor(ctx, p.root, was, mb); err != nil {
			return "", err
		}
	}
	not := append([]string{was}, q.trusted...)
	left, err := git.Unreached(ctx, p.root, mb, not)
	if err != nil || len(left) == 0 {
		return "", err
	}
	if q.remote != "" && !(over && q.remoteBase) {
		if left, err = othersLeft(ctx, p, mb, append(not, q.remote), left); err != nil || len(left) == 0 {
			return "", err
		}
	}
	if was == "" && !q.fromStart {
		// Nothing that exists anchors the base's history: all of it
		// left cannot be told apart from the base's own.
		all, err := git.CountReachable(ctx, p.root, mb)
		if err != nil {
			return "", err
		}
		if all <= len(left) {
			return unanchoredBase(p, q.branch), nil
		}
	}
	if over {
		return fmt.Sprintf("the %d commit(s) the base branch %s moved over since the last point seen to pass on %s "+
			"(from %s to %s): no stop judged them, and the change set against the base leaves them out",
			len(left), p.base, q.branch, shortID(was), shortID(mb)), nil
	}
	past := "past its last point seen to pass"
	if was == "" && len(q.trusted) == 0 && q.fromStart {
		past = "since before its first commit, where its gates were trusted or seen to pass"
	}
	return fmt.Sprintf("the %d commit(s) of the base branch %s that HEAD holds and no stop judged (%s): "+
		"made on %s %s, and the change set against the base leaves them out",
		len(left), p.base, commitList(left), p.base, past), nil
}

// othersLeft is left (the commits HEAD holds through the base, from mb,
// that no point of the branch or of the base reached) less those the
// base's remote-tracking copy holds, fetched (not ends with it): the
// remote's, put there by someone else. A commit this repository made
// itself (git.MadeHere) stays: published to the remote by the agent (by
// URL, through another remote, by a push a later fetch moved past) and
// fetched back, it is still the agent's. The reflogs are read only when
// the remote's copy holds some of left.
func othersLeft(ctx context.Context, p *project, mb string, not, left []string) ([]string, error) {
	mine, err := git.Unreached(ctx, p.root, mb, not)
	if err != nil || len(mine) == len(left) {
		return mine, err
	}
	kept := make(map[string]bool, len(mine))
	for _, c := range mine {
		kept[c] = true
	}
	fetched := slices.DeleteFunc(slices.Clone(left), func(c string) bool { return kept[c] })
	made, err := git.MadeHere(ctx, p.root, fetched)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(left, func(c string) bool { return !kept[c] && !made[c] }), nil
}

// commitList names commits, newest first: three by their short names, the
// rest counted.
func commitList(ids []string) string {
	const named = 3
	short := make([]string, 0, named)
	for _, id := range ids[:min(len(ids), named)] {
		short = append(short, shortID(id))
	}
	s := strings.Join(short, ", ")
	if len(ids) > named {
		s += fmt.Sprintf(" and %d more", len(ids)-named)
	}
	return s
}

// pointOf is the point a run on branch, whose base branch holds HEAD,
// reaches back to: the branch's last point seen to pass; else the latest
// that HEAD descends from of the base branch's own last point seen to pass
// and the trusted record's start point (so that a branch just made from a
// base that moved on since the gates were trusted is judged from where the
// base was last seen to pass, not on everything merged into it since);
// else none, and what the run cannot look at.
func (b *begun) pointOf(ctx context.Context, p *project, branch string) (from, unanchored string, err error) {
	if pt, ok := b.rec.Book.VerifiedOn(branch); ok {
		return pt.Commit, "", nil
	}
	refs, err := b.refs.get()
	if err != nil || refs.Head == "" {
		return "", "", nil
	}
	candidates := []string{p.opts.StartPoint}
	for name, pt := range b.rec.Book.Verified {
		if name != branch && namesBranch(p.base, name) {
			candidates = append(candidates, pt.Commit)
		}
	}
	for _, c := range candidates {
		if c == "" || c == from {
			continue
		}
		ok, err := descends(ctx, p, c, refs.Head)
		if err != nil {
			return "", "", err
		}
		if !ok {
			continue
		}
		if from != "" && from != git.EmptyTree {
			if c == git.EmptyTree {
				continue
			}
			if ok, err = isAncestor(ctx, p.root, from, c); err != nil || !ok {
				continue
			}
		}
		from = c
	}
	if from != "" {
		return from, "", nil
	}
	// Only an agent's stop marks a point over them (ending.marksPoint).
	then := "from now on, work committed here is judged from HEAD"
	if !p.opts.Agent {
		then = "a run by hand marks no point over them"
	}
	return "", fmt.Sprintf("the commits of %s up to HEAD %s: the base branch %s holds HEAD, and no earlier point of %s "+
		"was seen to pass or recorded when its gates were trusted (%s)",
		branch, shortID(refs.Head), p.base, branch, then), nil
}

// descends reports whether head is point or descends from it (every
// commit descends from git's empty tree, the point before a first
// commit); a point that no longer exists is not.
func descends(ctx context.Context, p *project, point, head string) (bool, error) {
	if point == git.EmptyTree {
		return true, nil
	}
	if ok, err := git.ObjectExists(ctx, p.root, point); err != nil || !ok {
		return false, err
	}
	return isAncestor(ctx, p.root, point, head)
}

// namesBranch reports whether the base branch base names branch: the
// branch itself, or its copy on a remote (origin/main for main).
func namesBranch(base, branch string) bool {
	base = strings.TrimPrefix(strings.TrimPrefix(base, "refs/"), "heads/")
	return base == branch || strings.HasSuffix(base, "/"+branch) && !strings.Contains(branch, "/")
}

// headInBase reports whether the base branch holds HEAD: the agent's
// committed work is then in the base, where the flags' scope does not see
// it.
func (b *begun) headInBase(ctx context.Context, p *project) (bool, error) {
	refs, err := b.refs.get()
	if err != nil || refs.Head == "" || refs.BaseErr != nil || refs.Base == "" {
		return false, nil
	}
	if loc, err := p.loc.get(); err == nil && p.cacheWanted() {
		// Asked at every stop of a branch not merged into its base: the
		// memo answers the same two commits without git.
		return cache.NewAncestry(p.root, loc.CommonDir).IsAncestor(ctx, refs.Head, refs.Base)
	}
	return isAncestor(ctx, p.root, refs.Head, refs.Base)
}

// shortID is a commit id cut to 12 hex digits, as messages write it.
func shortID(id string) string { return id[:min(len(id), 12)] }
