package runner

import (
	"context"
	"path"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// baseStore is the result cache as the store of base-branch baselines
// (baseline.Store): a check's result on a base commit is kept by
// BaseResults under the check's key on the base commit's tree (its whole
// job included) with the changed files the base run is given, those that
// are files at the base (as the worktree source runs it), and what
// ${BASE_BRANCH} stands for. The next failure of the same check on the same
// base takes it, without a temporary worktree.
type baseStore struct {
	b *BaseResults
	// take is false with --no-cache: base results are kept, not taken.
	take bool
}

// Load returns the base result kept for req.
func (s baseStore) Load(ctx context.Context, req baseline.Request) (baseline.Result, bool) {
	var res baseline.Result
	if !s.take {
		return res, false
	}
	job, ok := s.baseJob(ctx, req)
	return res, ok && s.b.Load(ctx, job, req.Commit, baseExtra(req), &res)
}

// Save keeps res as the base result of req.
func (s baseStore) Save(ctx context.Context, req baseline.Request, res baseline.Result) {
	if job, ok := s.baseJob(ctx, req); ok {
		s.b.Save(ctx, job, req.Commit, baseExtra(req), res)
	}
}

// baseExtra is what a base result depends on beyond the job and the tree.
func baseExtra(req baseline.Request) string { return "base_branch=" + req.BaseBranch }

// baseJob is req's job as the base run is given it: its changed files
// narrowed to those that are files at the base (a blob of the base tree:
// a file or a symbolic link, never a directory). ok is false when that
// cannot be told.
func (s baseStore) baseJob(ctx context.Context, req baseline.Request) (gate.Job, bool) {
	job := req.Job
	if job.Changed == nil {
		return job, true
	}
	tree, ok := s.b.tree(ctx, req.Commit)
	if !ok {
		return job, false
	}
	paths := make([]string, len(job.Changed))
	for i, f := range job.Changed {
		paths[i] = path.Join(s.b.c.prefix, f)
	}
	entries, err := git.TreeEntries(ctx, s.b.c.root, tree, paths)
	if err != nil {
		return job, false
	}
	present := make([]string, 0, len(job.Changed))
	for i, f := range job.Changed {
		if entries[paths[i]].Type == "blob" {
			present = append(present, f)
		}
	}
	job.Changed = present
	return job, true
}

// baseSource is the run's source of base results: the result cache
// first, when the run has one, then a temporary worktree (deps.baseSource).
func (e *execution) baseSource() baseline.ClosingSource {
	next := e.deps.baseSource(e.root)
	if b := e.baseResults(); b != nil {
		return baseline.Cached{Store: baseStore{b: b, take: e.cache.lookup}, Next: next}
	}
	return next
}
