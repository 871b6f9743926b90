package run

import (
	"context"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/sched"
)

// ran is what the gates of a run did.
type ran struct {
	// results are one per job, in job order: taken from the cache or run.
	results []gate.Result
}

// runGates takes the passes the result cache holds, runs the other jobs
// (each kind by its runner, see kinds) and closes the baselines' worktrees
// as soon as the gates are done.
func runGates(ctx context.Context, s *services, p *project, b *begun, ch *changes, pl *planned, prep *prepared) ran {
	pending, removePending := pendingLogs(p.root)
	defer removePending()
	env := gate.Env{Root: p.root, LogDir: b.runDir, Pending: pending, Names: pl.names, RunNumber: b.runNumber, Diff: prep.spec, CI: p.eff.CI,
		Config: p.cfg, Previous: prep.previous, Console: s.cons, Skips: prep.skips}
	report := reporter{cons: s.cons, debug: p.debug, record: verdictRecorder(ctx, s, p, b)}
	hits, rest := takeCached(s, prep, pl.jobs, env, report)
	var results []gate.Result
	if len(rest) > 0 {
		results = sched.Run(ctx, rest, env, sched.Options{
			AllowParallel:   p.cfg.AllowParallel,
			Runners:         runners(kindRun{p: p, b: b, ch: ch, pl: pl, prep: prep}),
			Preflight:       preflight,
			PreflightResult: preflightResult,
			Report:          report,
		})
	}
	p.snap.gatesEnded(len(rest) > 0)
	p.baselines.close()
	if len(rest) > 0 {
		p.baselines.prune()
	}
	return ran{results: cache.Merge(pl.jobs, hits, results)}
}

// takeCached returns the results the run's cache holds for jobs (by
// index; their logs written and their lines printed) and the jobs left to
// run.
func takeCached(s *services, prep *prepared, jobs []gate.Job, env gate.Env, report reporter) (map[int]gate.Result, []gate.Job) {
	found, rest := prep.cache.Take(jobs, s.now(), prep.base)
	if len(found) == 0 {
		return nil, rest
	}
	hits := make(map[int]gate.Result, len(found))
	all := make([]gate.Result, 0, len(found))
	for i, job := range jobs {
		hit, ok := found[i]
		if !ok {
			continue
		}
		res := writeCached(env, job, hit, s.now)
		report.show(res)
		hits[i] = res
		all = append(all, res)
	}
	// The passes the cache held are recorded at once: they happen together.
	if report.record != nil {
		report.record(all...)
	}
	return hits, rest
}

// reporter prints gate events, records them in the debug log and each
// result's verdicts in the verdict book (record, nil for none).
type reporter struct {
	cons   *console.Console
	debug  *debuglog.Log
	record func(...gate.Result)
}

// Start prints the [START] line.
func (r reporter) Start(id string) { r.cons.Start(id) }

// Result prints the result lines, logs GATE_RESULT and records the
// verdicts.
func (r reporter) Result(res gate.Result) {
	r.show(res)
	if r.record != nil {
		r.record(res)
	}
}

// show prints the result lines and logs GATE_RESULT.
func (r reporter) show(res gate.Result) {
	r.cons.Result(res)
	fields := fmt.Sprintf("%s status=%s duration=%.2fs", res.JobID, res.Status, res.Duration.Seconds())
	if len(res.Slots) > 0 {
		fields += fmt.Sprintf(" violations=%d", res.ErrorCount)
	}
	if res.Cached != nil {
		fields += fmt.Sprintf(" cached_from_run=%d", res.Cached.Run)
	}
	r.debug.Event(debuglog.EventGateResult, fields)
}
