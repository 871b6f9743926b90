package runner

import (
	"context"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/sched"
)

// pruneTimeout bounds the removal of worktrees left by dead runs.
const pruneTimeout = 30 * time.Second

// checkRunner runs the check gates of a run: check.Run, and when a check
// with baseline: true fails, its failure is compared with the same check
// on the base commit of the run's whole change set (ch.full: the merge
// base with the base branch, HEAD for -u, the commit's parent for -c, also
// in verification runs; where the previous run's changes started when only
// they are left), which the run's base source answers (a temporary
// worktree; see deps.baseSource), after the result cache (baseSource).
func (e *execution) checkRunner(ch changes, jobs []gate.Job) sched.RunFunc {
	if !anyBaseline(jobs) {
		return check.Run
	}
	e.baseSrc = e.baseSource()
	spec := ch.full
	j := &baseline.Judge{Source: e.baseSrc, BaseBranch: e.base, Where: whereBase(spec.Mode), Commit: func(ctx context.Context) (string, error) {
		return git.BaseCommit(ctx, e.root, spec)
	}}
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		return check.RunJudged(ctx, job, env, j.Failure)
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

// closeBaselines removes the run's temporary worktrees and, in a project
// that uses baselines, those that runs which died left behind. It runs as
// soon as the gates are done (before the run's snapshot of the work tree)
// and again at cleanup, whatever ended the run.
func (e *execution) closeBaselines() {
	if e.baseSrc != nil {
		e.baseSrc.Close()
		e.baseSrc = nil
	}
	if e.pruned || e.cfg == nil || e.root == "" {
		return
	}
	e.pruned = true
	for _, c := range e.cfg.Checks {
		if c.Baseline {
			ctx, cancel := context.WithTimeout(context.Background(), pruneTimeout)
			baseline.PruneStale(ctx, e.root)
			cancel()
			return
		}
	}
}
