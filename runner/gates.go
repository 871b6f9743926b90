package runner

import (
	"context"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/sched"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// runGates opens the run's console log, runs the jobs and finishes the run
// (finish).
func (e *execution) runGates(ctx context.Context, ch changes, jobs []gate.Job, verification bool) RunResult {
	consolePath := logdir.ConsoleName(e.runNumber).Path(e.runDir)
	if err := os.MkdirAll(e.runDir, 0o755); err != nil {
		return e.fail(StatusError, fmt.Errorf("create log directory %s: %w", e.runDir, err))
	}
	if err := e.cons.Open(consolePath); err != nil {
		return e.fail(StatusError, err)
	}
	e.logged = true
	previous := e.previousFailures(verification)
	e.branchSkips = e.skips(jobs)
	if e.cache = e.openCache(ctx); e.cache != nil {
		e.computeKeys(ctx, e.cache, ch, jobs)
	}
	spec := e.gateSpec(ctx, ch.spec, jobs)
	e.logRunStart(ctx, spec, len(jobs), verification)
	e.cons.Printf(lineRunning, len(jobs))
	env := gate.Env{Root: e.root, LogDir: e.runDir, Names: e.names, RunNumber: e.runNumber, Diff: spec, CI: e.ci,
		Config: e.cfg, Previous: previous, Console: e.cons, Skips: e.branchSkips}
	report := reporter{cons: e.cons, debug: e.debug}
	hits, rest := e.takeCached(e.cache, jobs, env, report)
	e.gatesRan = len(rest) > 0
	var ran []gate.Result
	if len(rest) > 0 {
		ran = sched.Run(ctx, rest, env, sched.Options{
			AllowParallel:   e.cfg.AllowParallel,
			Check:           e.checkRunner(ch, rest),
			Review:          e.reviewRunner(ch),
			Preflight:       preflight,
			PreflightResult: check.PreflightResult,
			Report:          report,
		})
	}
	e.gatesDone.Store(true)
	e.closeBaselines()
	return e.finish(ctx, ch, jobs, mergeResults(jobs, hits, ran), previous, consolePath)
}

// previousFailures loads what earlier runs left to verify, in a
// verification run (nil otherwise), and says how much.
func (e *execution) previousFailures(verification bool) *gate.Pending {
	if !verification {
		return nil
	}
	previous, warnings, err := e.deps.loadPending(e.logDir, e.names, e.opts.Gate)
	for _, w := range warnings {
		e.cons.Printf(lineWarning, w)
	}
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("cannot load previous failures: %v", err))
	}
	if n, v := previous.Count(); n > 0 {
		e.cons.Printf(linePreviousFails, n, v)
	}
	return previous
}

// gateSpec is the change scope the gates get: spec with the tree of the
// run's snapshot of the work tree when reviews (or the debug log's diff
// statistics) need one, so that every gate sees the same work tree. When
// reviews get that tree, it is the one the run's state records
// (reviewedSnapshot).
func (e *execution) gateSpec(ctx context.Context, spec gate.DiffSpec, jobs []gate.Job) gate.DiffSpec {
	needTree := e.debug != nil || hasReview(jobs)
	if !needTree || spec.WorkTree != "" || spec.Mode == gate.DiffCommit || spec.Mode == gate.DiffCI {
		e.reviewedSnapshot = spec.WorkTree != "" && hasReview(jobs)
		return spec
	}
	tree, err := e.snapshotTree(ctx)
	if err != nil {
		e.cons.Printf(lineWarning, err)
		return spec
	}
	spec.WorkTree = tree
	e.reviewedSnapshot = hasReview(jobs)
	return spec
}

// hasReview reports whether jobs hold a review job.
func hasReview(jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.Kind == gate.KindReview {
			return true
		}
	}
	return false
}

// logRunStart writes the debug log's RUN_START event with the diff
// statistics of spec.
func (e *execution) logRunStart(ctx context.Context, spec gate.DiffSpec, gates int, verification bool) {
	if e.debug == nil {
		return
	}
	mode := "full"
	if verification {
		mode = "verification"
	}
	st, err := git.DiffStats(ctx, e.root, spec)
	if err != nil {
		st.BaseRef = spec.BaseBranch
	}
	e.debug.Event(debuglog.EventRunStart, fmt.Sprintf("mode=%s base_ref=%s files_changed=%d files_new=%d files_modified=%d files_deleted=%d lines_added=%d lines_removed=%d gates=%d",
		mode, st.BaseRef, st.Changed(), st.New, st.Modified, st.Deleted, st.LinesAdded, st.LinesRemoved, gates))
}

// reporter prints gate events and records them in the debug log.
type reporter struct {
	cons  *console.Console
	debug *debuglog.Log
}

// Start prints the [START] line.
func (r reporter) Start(id string) { r.cons.Start(id) }

// Result prints the result lines and logs GATE_RESULT.
func (r reporter) Result(res gate.Result) {
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

// reviewRunner runs the review gates of the run in one review.Session. In
// verification mode a review gate sees only the changes since the previous
// run's snapshot when it judged that snapshot (judgedPrevious) and its entry
// point changed since; every other review gate gets the whole change set.
// One whose entry point did not change has its pending violations verified
// again rather than passing as "no changes"; one that did not judge the
// snapshot (it did not run in that run, erred, ran with another change
// scope: `run -g other`, `check`, `-u`, `-b`, or was defined otherwise:
// another prompt, adapter or model) never passes on a diff that hides
// changes it has not seen.
func (e *execution) reviewRunner(ch changes) sched.RunFunc {
	runReview := review.NewSession().WithAnswers(e.cache.answers()).Run
	if ch.spec == ch.full {
		return runReview
	}
	touched := map[string]bool{}
	expanded, _ := entry.Expand(e.root, e.cfg.EntryPoints, ch.since)
	for _, ep := range expanded {
		touched[ep.Path] = true
	}
	judged := e.judgedPrevious()
	full := ch.full
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		if !touched[job.EntryPoint] || !judged[job.ID] || e.redefined(job) {
			env.Diff = full
		}
		return runReview(ctx, job, env)
	}
}

// judgedPrevious are the review jobs that judged the previous run's
// snapshot: that run had this run's change scope and the job reached a
// verdict in it (review.Judged). None when the state does not say which
// run wrote it.
func (e *execution) judgedPrevious() map[string]bool {
	if e.prev.RunNumber == 0 || e.prev.Scope != e.scope() {
		return nil
	}
	names, err := logdir.Scan(e.logDir)
	if err != nil {
		return nil
	}
	return review.Judged(e.logDir, names, e.names, e.prev.RunNumber)
}

// redefined reports whether the review job is not defined as it was in
// the previous run (or the state does not say how it was).
func (e *execution) redefined(job gate.Job) bool {
	was, ok := e.prev.ReviewDefinitions[job.ID]
	return !ok || was == "" || was != cache.DefinitionFingerprint(job)
}

// scope names the run's change scope in the execution state: the mode and
// the base branch its flags chose.
func (e *execution) scope() string {
	spec := e.diffSpec()
	return string(spec.Mode) + " " + spec.BaseBranch
}

// preflight checks the program of check jobs; review jobs check their
// adapters themselves.
func preflight(ctx context.Context, job gate.Job, env gate.Env) string {
	if job.Kind != gate.KindCheck {
		return ""
	}
	return check.Preflight(ctx, job, env)
}
