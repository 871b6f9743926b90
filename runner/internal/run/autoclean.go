package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// detachedHEAD is what git.Branch returns when HEAD is detached.
const detachedHEAD = "HEAD"

// autoClean archives the logs and the execution state before a run when
// the previous run's context is gone: the previous run's branch is not the
// current branch (CleanBranchChanged), or its commit has been merged into
// the base branch (CleanCommitMerged). Without logs to archive nothing is
// asked of git; the stale state then stays (it is harmless without logs)
// and nothing is said. The verdicts stay (see Record.follow): a merge,
// or moving a ref so that work looks merged, never ends an episode, whose
// failures the run still verifies from where it began.
func autoClean(ctx context.Context, s *services, p *project, refs *future[git.Refs], prev state.State) (bool, error) {
	if prev.Branch == "" && prev.Commit == "" || !archivable(p.logDir) {
		return false, nil
	}
	refs.start()
	st := staleness{root: p.root, refs: refs, prev: prev}
	reason, err := st.reason(ctx, s, p.opts.BaseBranch == "")
	if err != nil || reason == "" {
		return false, err
	}
	res, err := Archive(p.root, p.logDir, reason, p.debug)
	printKept(s, res)
	if err != nil {
		return false, fmt.Errorf("auto-clean %s: %w", p.logDir, err)
	}
	if res.Archived {
		s.cons.Printf(lineAutoClean, reason)
	}
	return res.Archived, nil
}

// staleness judges whether the context of the previous run, whose state is
// prev, is gone from the project at root.
type staleness struct {
	root string
	refs *future[git.Refs]
	prev state.State
}

// reason says why the previous run's context is gone, "" when it is not;
// configuredBase is true when the run compares with the configured base
// branch (no -b). A branch that cannot be read is a warning and no reason.
func (st staleness) reason(ctx context.Context, s *services, configuredBase bool) (CleanReason, error) {
	prev := st.prev
	// The branch decides alone most of the time; the refs are on their way.
	branch, err := git.Branch(ctx, st.root)
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) || errors.Is(err, git.ErrRepository) {
			return "", err
		}
		s.cons.Printf(lineWarning, fmt.Sprintf("cannot read the current branch, no auto-clean: %v", err))
		return "", nil
	}
	// A detached HEAD (mid-rebase, a checked-out commit) is named "HEAD":
	// that is no branch, so no branch change either way; the merged-commit
	// rule alone decides. That rule judges against the configured base
	// branch only: a run with -b names another base for its own changes,
	// and must not archive the work tree's pending failures because the
	// last run's commit is in that one (-b HEAD would archive them all).
	switch {
	case prev.Branch != "" && prev.Branch != detachedHEAD && branch != detachedHEAD && prev.Branch != branch:
		return CleanBranchChanged, nil
	case configuredBase && st.merged(ctx):
		return CleanCommitMerged, nil
	}
	return "", nil
}

// merged reports whether the work the state verified is now in the base
// branch: its commit (committedMerged), or the commits made on top of it
// since (headMerged).
func (st staleness) merged(ctx context.Context) bool {
	if st.prev.Commit == "" {
		return false
	}
	refs, err := st.refs.get()
	if err != nil || refs.BaseErr != nil || refs.Base == "" {
		return false
	}
	return st.committedMerged(ctx, refs) || st.headMerged(ctx, refs)
}

// committedMerged reports whether the state's commit is now reachable from
// the base branch, as work that was not already in the base branch when it
// was verified (the base recorded in the working-tree snapshot); without a
// recorded base, a commit still checked out (HEAD) is not called merged, so
// work sitting uncommitted on top of the base branch keeps its logs.
func (st staleness) committedMerged(ctx context.Context, refs git.Refs) bool {
	prev := st.prev
	in, err := isAncestor(ctx, st.root, prev.Commit, refs.Base)
	if err != nil || !in {
		return false
	}
	if recorded := refs.SnapshotBase; recorded != "" {
		already, err := isAncestor(ctx, st.root, prev.Commit, recorded)
		return err == nil && !already
	}
	return refs.Head != prev.Commit
}

// headMerged reports whether the commits made on top of the state's commit
// since (the verified work, committed after the run) were merged into the
// base branch: HEAD descends from that commit, the base branch holds HEAD
// and has moved past it (a merge; a base branch that is HEAD itself is
// work committed or pushed onto it, whose logs stay), and HEAD was not in
// the base recorded in the snapshot.
func (st staleness) headMerged(ctx context.Context, refs git.Refs) bool {
	prev := st.prev
	if refs.Head == "" || refs.Head == prev.Commit || refs.Head == refs.Base {
		return false
	}
	for _, q := range [][2]string{{prev.Commit, refs.Head}, {refs.Head, refs.Base}} {
		if in, err := isAncestor(ctx, st.root, q[0], q[1]); err != nil || !in {
			return false
		}
	}
	if recorded := refs.SnapshotBase; recorded != "" {
		already, err := isAncestor(ctx, st.root, refs.Head, recorded)
		return err == nil && !already
	}
	return true
}

// isAncestor is git.IsAncestor without a git process for a commit and
// itself.
func isAncestor(ctx context.Context, root, commit, of string) (bool, error) {
	if commit == of {
		return true, nil
	}
	return git.IsAncestor(ctx, root, commit, of)
}

// archivable reports whether auto-clean could archive anything in dir, or
// cannot tell: without logs there is nothing to do, and no git question
// needs asking.
func archivable(dir string) bool {
	has, err := logdir.HasLogs(dir)
	return has || err != nil
}
