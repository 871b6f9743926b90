package run

import (
	"context"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/sched"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// kind is what the engine does with the jobs of one gate kind: the one
// place a gate kind plugs into a run (see kinds).
type kind struct {
	// runner runs the kind's jobs of a run.
	runner func(k kindRun) sched.RunFunc
	// preflight checks a job before any job runs: a message fails it
	// (preflightResult). Nil: the kind checks its jobs as they run.
	preflight       func(ctx context.Context, job gate.Job, env gate.Env) string
	preflightResult func(job gate.Job, env gate.Env, msg string) gate.Result
	// cached writes the logs of a job whose pass the result cache held (hit,
	// proof the line naming the proving run) and returns its result.
	cached func(env gate.Env, job gate.Job, hit cache.Hit, proof string, now func() time.Time) gate.Result
}

// kinds is the table of gate kinds: a new kind is one row here, its
// package under runner/internal, and the per-kind facts of a job
// (runner/internal/gate/kind.go).
var kinds = map[gate.Kind]kind{
	gate.KindCheck: {
		runner:          checkRunner,
		preflight:       check.Preflight,
		preflightResult: check.PreflightResult,
		cached: func(env gate.Env, job gate.Job, hit cache.Hit, proof string, _ func() time.Time) gate.Result {
			return check.WriteCached(env, job, hit.Result, proof)
		},
	},
	gate.KindReview: {
		runner: reviewRunner,
		cached: func(env gate.Env, job gate.Job, hit cache.Hit, proof string, now func() time.Time) gate.Result {
			slots := make([]review.CachedSlot, 0, len(hit.Proof.Slots))
			for _, s := range hit.Proof.Slots {
				slots = append(slots, review.CachedSlot{Adapter: s.Adapter, Index: s.Index, Message: s.Message})
			}
			return review.WriteCached(env, job, hit.Result, slots, proof, now)
		},
	},
}

// kindRun is what a kind's runner is made from: the run's project, the
// state it began with, its changes, jobs and preparations.
type kindRun struct {
	p    *project
	b    *begun
	ch   *changes
	pl   *planned
	prep *prepared
}

// runners are the runners of the kinds of the run's jobs (kindRun), for
// the scheduler.
func runners(k kindRun) map[gate.Kind]sched.RunFunc {
	out := map[gate.Kind]sched.RunFunc{}
	for _, j := range k.pl.jobs {
		if _, ok := out[j.Kind]; !ok {
			out[j.Kind] = kinds[j.Kind].runner(k)
		}
	}
	return out
}

// preflight checks a job of a kind that checks its jobs before any runs.
func preflight(ctx context.Context, job gate.Job, env gate.Env) string {
	if f := kinds[job.Kind].preflight; f != nil {
		return f(ctx, job, env)
	}
	return ""
}

// preflightResult is the result of a job its preflight failed with msg.
func preflightResult(job gate.Job, env gate.Env, msg string) gate.Result {
	return kinds[job.Kind].preflightResult(job, env, msg)
}

// writeCached writes the logs of a job whose pass the cache held.
func writeCached(env gate.Env, job gate.Job, hit cache.Hit, now func() time.Time) gate.Result {
	return kinds[job.Kind].cached(env, job, hit, console.CachedProof(*hit.Result.Cached), now)
}

// checkRunner runs the check gates of a run: check.Run, and when a check
// with baseline: true fails, its failure is compared with the same check
// on the base commit of the run's change set (ch.base: the merge base with
// the base branch, HEAD for -u, the commit's parent for -c, also in
// verification runs; on the base branch itself, where the changes since
// the last verified point or the episode's start began), which the run's
// baselines answer (the result cache, then a temporary worktree).
func checkRunner(k kindRun) sched.RunFunc {
	if !anyBaseline(k.pl.jobs) {
		return check.Run
	}
	root, spec := k.p.root, k.ch.base
	where := whereBase(spec.Mode)
	if moved := k.ch.baseMoved; moved != "" {
		where = episodeBase(k.p.base, moved)
	}
	j := &baseline.Judge{Source: k.p.baselines.source(k.prep.cache), BaseBranch: k.p.base, Where: where,
		Commit: func(ctx context.Context) (string, error) { return git.BaseCommit(ctx, root, spec) }}
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		return check.RunJudged(ctx, job, env, j.Failure)
	}
}

// episodeBase says where the base commit is when the base branch (named
// base) moved to moved since the pending failures were found (see
// changes.keepEpisodeBase), for baseline.Judge.Where.
func episodeBase(base, moved string) string {
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	return "on the base the pending failures were found against (%s); the base branch " + esc(base) +
		" moved to " + esc(moved) + " since, and a base that moved onto the work is no evidence"
}

// reviewRunner runs the review gates of the run in one review.Session,
// its answers kept in the result cache. In verification mode a review gate
// sees only the changes since the previous run's snapshot when it judged
// that snapshot (judgedPrevious) and its entry point changed since; every
// other review gate gets the whole change set. One whose entry point did
// not change has its pending violations verified again rather than
// passing as "no changes"; one that did not judge the snapshot (it did not
// run in that run, erred, ran with another change scope: `run -g other`,
// `check`, `-u`, `-b`, or was defined otherwise: another prompt, adapter
// or model) never passes on a diff that hides changes it has not seen.
func reviewRunner(k kindRun) sched.RunFunc {
	runReview := listedFor(k.ch, review.NewSession().WithAnswers(k.prep.cache.Answers()).Run)
	ch := k.ch
	if ch.spec == ch.full {
		return runReview
	}
	touched := map[string]bool{}
	expanded, _ := entry.Expand(k.p.root, k.p.cfg.EntryPoints, ch.since)
	for _, ep := range expanded {
		touched[ep.Path] = true
	}
	judged := judgedPrevious(k.p, k.b)
	prev := k.b.prev
	full := ch.full
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		if !touched[job.EntryPoint] || !judged[job.ID] || redefined(prev.ReviewDefinitions, job) {
			env.Diff = full
		}
		return runReview(ctx, job, env)
	}
}

// judgedPrevious are the review jobs that judged the previous run's
// snapshot: that run had this run's change scope and the job reached a
// verdict (pass or fail) in it, as the verdict book records. None when the
// book does not say which run that was.
func judgedPrevious(p *project, b *begun) map[string]bool {
	out := map[string]bool{}
	run := b.prev.RunNumber
	if run == 0 || b.prev.Scope != p.scopeName() || b.rec == nil {
		return out
	}
	for job, slots := range b.rec.Book.Slots {
		for _, v := range slots {
			if v.Run == run && (v.Status == verdicts.StatusPass || v.Status == verdicts.StatusFail) {
				out[job] = true
			}
		}
	}
	return out
}

// redefined reports whether the review job is not defined as it was in
// the previous run (defs, the definitions its state records; or the state
// does not say how it was).
func redefined(defs map[string]string, job gate.Job) bool {
	was, ok := defs[job.ID]
	return !ok || was == "" || was != cache.DefinitionFingerprint(job)
}

// listedFor is run with each review job's Listed cut to the paths the
// change set of its diff lists: those since the previous snapshot for a
// review given them, those of the whole change set else. A path only the
// other lists is no change of the diff the review is given.
func listedFor(ch *changes, run sched.RunFunc) sched.RunFunc {
	if ch.spec == ch.full && len(ch.fullFiles) == len(ch.files) {
		return run
	}
	full, since := setOf(ch.fullFiles), setOf(ch.since)
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		keep := full
		if env.Diff != ch.full {
			keep = since
		}
		listed := make([]string, 0, len(job.Listed))
		for _, f := range job.Listed {
			if keep[f] {
				listed = append(listed, f)
			}
		}
		job.Listed = listed
		return run(ctx, job, env)
	}
}

// setOf is the set of paths.
func setOf(paths []string) map[string]bool {
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		out[p] = true
	}
	return out
}
