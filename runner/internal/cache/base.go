package cache

import (
	"context"
	"fmt"
	"path"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// baseResults keeps results of check gates on the trees of base commits,
// for base-branch baselines: a failing check is run on the merge base to
// tell a pre-existing failure from a new one, and the base does not change
// from one run to the next. A result is keyed as the run keys the work
// tree (version, project, base branch and its commit, the gate's
// definition and cache scope) on the commit's tree, plus what else the
// caller's result depends on (extra: the changed files the check was
// given, ...). Its value is any JSON the caller keeps, a failure included:
// these records are never taken for a run's pass.
type baseResults struct{ c *Results }

// key is the key of job's result on commit's tree with extra; ok is false
// when there is none (a review, cache: false, an unknown commit).
func (b *baseResults) key(ctx context.Context, job gate.Job, commit, extra string) (string, bool) {
	if job.Kind != gate.KindCheck {
		return "", false
	}
	tree, ok := b.tree(ctx, commit)
	if !ok {
		return "", false
	}
	keys, err := b.c.keysOn(ctx, tree, "", nil, []gate.Job{job}, nil)
	if err != nil || keys[job.ID] == "" {
		return "", false
	}
	return BaseKey(keys[job.ID], extra), true
}

// tree is the tree of commit; ok is false without a cache or when commit
// names no commit.
func (b *baseResults) tree(ctx context.Context, commit string) (string, bool) {
	if b == nil || b.c == nil {
		return "", false
	}
	objs, err := git.Objects(ctx, b.c.root, commit+"^{tree}")
	if err != nil || len(objs) != 1 || objs[0].Type != "tree" {
		return "", false
	}
	return objs[0].SHA, true
}

// load decodes the result of job on commit's tree with extra into v; false
// on a miss (and on any doubt: a cache never fails a run).
func (b *baseResults) load(ctx context.Context, job gate.Job, commit, extra string, v any) bool {
	k, ok := b.key(ctx, job, commit, extra)
	if !ok {
		return false
	}
	_, ok, why := b.c.ledger.Get(k, v)
	if why != nil {
		b.c.debug.Event(debuglog.EventCache, fmt.Sprintf("base result of %s: %v", job.ID, why))
	}
	return ok
}

// save keeps v as the result of job on commit's tree with extra; a problem
// is a note in the debug log.
func (b *baseResults) save(ctx context.Context, job gate.Job, commit, extra string, v any) {
	k, ok := b.key(ctx, job, commit, extra)
	if !ok {
		return
	}
	if err := b.c.ledger.Put(k, v); err != nil {
		b.c.debug.Event(debuglog.EventCache, fmt.Sprintf("base result of %s not kept: %v", job.ID, err))
	}
}

// BaseSource is the source of base results of a run with the cache c:
// the cache first, then next (a temporary worktree); next alone without
// a cache.
func (c *Results) BaseSource(next baseline.ClosingSource) baseline.ClosingSource {
	if c == nil {
		return next
	}
	return baseline.Cached{Store: baseStore{b: &baseResults{c: c}, take: c.lookup}, Next: next}
}

// baseStore is the result cache as the store of base-branch baselines
// (baseline.Store): a check's result on a base commit is kept under the
// check's key on the base commit's tree (its whole job included) with the
// changed files the base run is given, those that are files at the base
// (as the worktree source runs it), and what ${BASE_BRANCH} stands for.
// The next failure of the same check on the same base takes it, without a
// temporary worktree.
type baseStore struct {
	b *baseResults
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
	return res, ok && s.b.load(ctx, job, req.Commit, baseExtra(req), &res)
}

// Save keeps res as the base result of req.
func (s baseStore) Save(ctx context.Context, req baseline.Request, res baseline.Result) {
	if job, ok := s.baseJob(ctx, req); ok {
		s.b.save(ctx, job, req.Commit, baseExtra(req), res)
	}
}

// baseExtra is what a base result depends on beyond the job and the tree:
// the base branch, and what the base run sees beyond the tree (World).
func baseExtra(req baseline.Request) string {
	return "base_branch=" + req.BaseBranch + "\nworld=" + req.World
}

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
