package run

import (
	"context"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// pruneTimeout bounds the removal of worktrees left by dead runs.
const pruneTimeout = 30 * time.Second

// baselines answer for the base commit of a run's failed checks with
// baseline: true: the result cache first, then a temporary worktree
// (deps.baseSource), opened once a check needs it and closed as soon as
// the gates are done, and again when the run ends.
type baselines struct {
	cfg  *config.Config
	root string
	next func(root string) baseline.ClosingSource
	// src is the source opened (nil before, and after close); pruned is
	// set once the worktrees dead runs left were looked for (prune).
	src    baseline.ClosingSource
	pruned bool
}

// source opens the source of base results, with the result cache c (nil:
// none) in front.
func (b *baselines) source(c *cache.Results) baseline.ClosingSource {
	b.src = c.BaseSource(b.next(b.root))
	return b.src
}

// close removes the run's temporary worktrees.
func (b *baselines) close() {
	if b != nil && b.src != nil {
		b.src.Close()
		b.src = nil
	}
}

// prune removes, in a project that uses baselines, the temporary worktrees
// that runs which died left behind, once per run. Only a run that ran
// gates asks: one whose every gate came from the cache made none, and the
// next that runs a gate prunes (git worktree list would be one more
// process of every such stop).
func (b *baselines) prune() {
	if b == nil || b.pruned {
		return
	}
	b.pruned = true
	for _, c := range b.cfg.Checks {
		if c.Baseline {
			ctx, cancel := context.WithTimeout(context.Background(), pruneTimeout)
			baseline.PruneStale(ctx, b.root)
			cancel()
			return
		}
	}
}

// whereBase says where the base commit of a change scope of mode is.
func whereBase(mode gate.DiffMode) string {
	switch mode {
	case gate.DiffUncommitted:
		return baseline.WhereHead
	case gate.DiffCommit:
		return baseline.WhereParent
	case gate.DiffFixBase:
		return baseline.WhereFixBase
	}
	return baseline.WhereMergeBase
}

// anyBaseline reports whether a check job of jobs has baseline: true.
func anyBaseline(jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.Kind == gate.KindCheck && j.Check.Baseline {
			return true
		}
	}
	return false
}
