package runner

import (
	"context"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// writeState records the branch, commit and a snapshot of the work tree:
// the branch and HEAD are asked of git while the snapshot is taken, or
// the snapshot taken before the gates (for verification or reviews) is
// checked and retaken if the gates changed the work tree. from is where
// the verified change set began (changes.from), recorded in the snapshot.
// With them go the episode (nextEpisode), the start of the stop hook's
// interval (lastFullPass) after a run that ended with status and, when
// archived, archives the logs, the run's number, change scope and review
// definitions (which tell the next run which review gates judged the
// snapshot), and the run's pre-existing failures.
func (e *execution) writeState(ctx context.Context, from string, status GauntletStatus, archived bool) {
	e.snap.start()
	hs, err := e.headState(ctx)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
		return
	}
	branch, head := hs.Branch, hs.Head
	ref, err := e.finalSnapshot(ctx, hs, from)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("no working tree snapshot: %v", err))
		ref = head
	}
	now := e.now()
	st := state.State{LastRunCompletedAt: now, Branch: branch, Commit: head, WorkingTreeRef: ref,
		LastFullPassAt: e.lastFullPass(status, now), EpisodeStartRun: e.nextEpisode(status, archived),
		SessionID: e.opts.SessionID, RunNumber: e.runNumber, Scope: e.scope(), PreExisting: e.preExisting,
		ReviewDefinitions: e.reviewDefs}
	if err := state.Write(e.logDir, st); err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
	}
}

// runSnapshot is the run's snapshot of the work tree (without the log
// directory).
type runSnapshot struct {
	tree *git.TreeSnapshot
	// afterGates is true when it was taken after every gate had ended: it
	// then is the work tree the gates left, no check needed.
	afterGates bool
}

// takeSnapshot snapshots the work tree into a kept index.
func (e *execution) takeSnapshot(ctx context.Context) (runSnapshot, error) {
	after := e.gatesDone.Load()
	ts, err := git.NewTreeSnapshot(ctx, e.root, e.excludes()...)
	if err != nil {
		return runSnapshot{}, err
	}
	for _, p := range ts.LeftOut {
		e.cons.Printf(lineLeftOut, console.Text(p))
	}
	return runSnapshot{tree: ts, afterGates: after}, nil
}

// recordedBase is the base commit a snapshot records, "" when the base
// branch names none.
func recordedBase(hs git.HeadState) string {
	if hs.BaseErr != nil {
		return ""
	}
	return hs.Base
}

// snapshotTree is the tree of the run's snapshot, taking it if needed.
func (e *execution) snapshotTree(ctx context.Context) (string, error) {
	rs, err := e.snap.get()
	if err != nil {
		return "", err
	}
	return rs.tree.Tree, nil
}

// finalSnapshot returns the snapshot commit, on HEAD with the base and from
// recorded, of the work tree the run's reviews were given when they were
// given the run's snapshot: what the gates changed in the work tree since
// (a formatter, an edit during the run) is then among the next run's
// changes since the snapshot, so no review that judged it ever misses it.
// Otherwise it is the work tree as the gates left it: the run's snapshot
// when nothing moved since it was taken, else taken again.
func (e *execution) finalSnapshot(ctx context.Context, hs git.HeadState, from string) (string, error) {
	rs, err := e.snap.get()
	if err != nil {
		return "", err
	}
	if !e.reviewedSnapshot {
		changed, err := e.treeMoved(ctx)
		if err != nil {
			return "", err
		}
		if changed {
			if err := rs.tree.Retake(ctx); err != nil {
				return "", err
			}
		}
	}
	if ref := e.sameSnapshot(rs.tree.Tree, hs, from); ref != "" {
		return ref, nil
	}
	c, err := git.CommitTreeOn(ctx, e.root, rs.tree.Tree, recordedBase(hs), from, hs.Head)
	if err != nil {
		return "", fmt.Errorf("snapshot commit: %w", err)
	}
	return c, nil
}

// headState is the branch, HEAD and base commit for the execution state:
// asked of git, or, when no gate ran (every pass from the cache, a run of
// milliseconds), what the run resolved at its start.
func (e *execution) headState(ctx context.Context) (git.HeadState, error) {
	if e.gatesDone.Load() && !e.gatesRan && e.loc.started.Load() && e.refs.started.Load() {
		loc, lerr := e.loc.get()
		refs, rerr := e.refs.get()
		if lerr == nil && rerr == nil && refs.Head != "" {
			return git.HeadState{Branch: loc.Branch, Head: refs.Head, Base: refs.Base, BaseErr: refs.BaseErr}, nil
		}
	}
	return git.ReadHeadState(ctx, e.root, e.base)
}

// sameSnapshot is the previous run's snapshot commit when it is the one
// this run would write (the same tree, on the same HEAD, recording the
// same base and origin), "" otherwise.
func (e *execution) sameSnapshot(tree string, hs git.HeadState, from string) string {
	prev := e.prev.WorkingTreeRef
	if prev == "" || !e.refs.started.Load() {
		return ""
	}
	refs, err := e.refs.get()
	if err != nil || refs.SnapshotTree != tree || refs.SnapshotParent != hs.Head || hs.Head == "" ||
		refs.SnapshotBase != recordedBase(hs) || refs.SnapshotSince != from {
		return ""
	}
	return prev
}

// treeMoved reports whether the work tree differs from the run's snapshot
// taken before the gates (asked once; false for a snapshot taken after
// them, or when no gate ran).
func (e *execution) treeMoved(ctx context.Context) (bool, error) {
	e.moved.once.Do(func() {
		rs, err := e.snap.get()
		switch {
		case err != nil:
			e.moved.changed, e.moved.err = true, err
		case rs.afterGates || (e.gatesDone.Load() && !e.gatesRan):
		default:
			e.moved.changed, e.moved.err = rs.tree.Changed(ctx)
			e.moved.checked = true
		}
	})
	return e.moved.changed, e.moved.err
}

// snapshotStill reports whether the work tree is still the run's snapshot,
// asking git unless treeMoved already did.
func (e *execution) snapshotStill(ctx context.Context) bool {
	if moved, err := e.treeMoved(ctx); e.moved.checked || err != nil {
		return err == nil && !moved
	}
	rs, err := e.snap.get()
	if err != nil {
		return false
	}
	moved, err := rs.tree.Changed(ctx)
	return err == nil && !moved
}

// cacheWanted reports whether the run may use the result cache (the
// project and the caller allow it), before the jobs are known.
func (e *execution) cacheWanted() bool { return e.opts.Version != "" && e.cfg.Cache.Enabled }

// closeSnapshot waits for the run's snapshot and removes its index.
func (e *execution) closeSnapshot() {
	if e.snap == nil || !e.snap.started.Load() {
		return
	}
	if rs, err := e.snap.get(); err == nil {
		rs.tree.Close()
	}
}
