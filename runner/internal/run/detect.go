package run

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
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
	// since are the paths changed since the previous run's snapshot
	// (verification mode only).
	since []string
	// from is where the change set verified by a chain of verification runs
	// began, when known (see previousChanges): recorded in this run's
	// snapshot, so that the next run of the chain finds it again.
	from string
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

// detectChanges is detect before the count.
func detectChanges(ctx context.Context, s *services, p *project, b *begun) (*changes, error) {
	spec := p.diffSpec()
	ch, err := b.changed.get()
	if err != nil {
		return nil, err
	}
	for _, w := range ch.Warnings {
		s.cons.Printf("%s", w)
	}
	prev := b.prev
	c := &changes{spec: spec, full: spec, files: scope.WithoutDir(ch.Files, p.logRel)}
	if !b.verification || prev.WorkingTreeRef == "" {
		return c, nil
	}
	ok, err := git.ObjectExists(ctx, p.root, prev.WorkingTreeRef)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.cons.Printf(lineWarning, fmt.Sprintf("the previous run's working tree snapshot %s is gone; verifying all changes", prev.WorkingTreeRef))
		return c, nil
	}
	tree, err := p.snap.tree()
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) || ctx.Err() != nil {
			return nil, err
		}
		s.cons.Printf(lineWarning, fmt.Sprintf("cannot snapshot the work tree, verifying all changes: %v", err))
		return c, nil
	}
	refs, refsErr := b.refs.get()
	if refsErr == nil {
		c.from = refs.SnapshotSince
	}
	fix := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: p.base, FixBase: prev.WorkingTreeRef, WorkTree: tree}
	since, err := git.ChangedFiles(ctx, p.root, fix)
	if err != nil {
		return nil, err
	}
	c.since = scope.WithoutDir(since.Files, p.logRel)
	c.files = scope.Union(c.files, c.since)
	if c.full.Mode != gate.DiffCommit && c.full.Mode != gate.DiffCI {
		c.full.WorkTree = tree
	}
	c.spec = c.full
	if len(c.since) > 0 && !p.opts.Uncommitted {
		c.spec = fix
	}
	if len(c.files) == 0 {
		return previousChanges(ctx, p, c, prev, tree, refs, refsErr)
	}
	return c, nil
}

// previousChanges is the change set of a verification run that found none:
// nothing changed since the previous run's snapshot, and the normal scope is
// empty too. That happens when the failing work was committed onto the base
// branch itself (HEAD is the base, so base...HEAD is empty): reporting
// no_changes would approve while failure logs are pending. The previous
// run's own change set is still in the work tree, though: it ran from the
// merge base of the base branch it recorded in its snapshot and its HEAD
// (its HEAD alone when it recorded none) to its snapshot, and as nothing
// changed since that snapshot, the diff from that point to the work tree
// now is that same change set. That point is recorded in this run's
// snapshot (changes.from) and reused by the next runs of the chain, whose own
// HEAD and base no longer tell it once the work is committed on the base.
// Every changed path counts as touched, so reviews verify their pending
// violations on that diff too. When even that is empty (nothing left of the
// previous changes), the run has nothing to verify and reports no changes.
// refs are the run's refs (refsErr when they could not be resolved).
func previousChanges(ctx context.Context, p *project, c *changes, prev state.State, tree string, refs git.Refs, refsErr error) (*changes, error) {
	from := c.from
	if from == "" && prev.Commit != "" {
		from = prev.Commit
		if refsErr == nil && refs.SnapshotBase != "" {
			mb, err := git.MergeBase(ctx, p.root, refs.SnapshotBase, prev.Commit)
			if err != nil {
				return nil, err
			}
			if mb != "" {
				from = mb
			}
		}
	}
	if from == "" {
		return c, nil
	}
	if ok, err := git.ObjectExists(ctx, p.root, from); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	c.from = from
	spec := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: p.base, FixBase: from, WorkTree: tree}
	ch, err := git.ChangedFiles(ctx, p.root, spec)
	if err != nil {
		return nil, err
	}
	files := scope.WithoutDir(ch.Files, p.logRel)
	if len(files) == 0 {
		return c, nil
	}
	c.files, c.since, c.spec, c.full = files, files, spec, spec
	return c, nil
}
