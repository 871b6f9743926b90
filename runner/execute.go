package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// deps are the effects of a run that tests replace.
type deps struct {
	// loadPending reads what earlier runs left to verify.
	loadPending func(logDir string, jn *logdir.JobNames, gateName string) (*gate.Pending, []string, error)
	// baseSource gives the base results of failed checks with baseline:
	// true in the project at root. The result cache (issue 16) plugs in
	// here: baseline.Cached{Store: <cache>, Next: baseline.NewWorktrees(root)}
	// answers from it before a worktree is made, and saves what the
	// worktree found.
	baseSource func(root string) baseline.ClosingSource
}

// realDeps are the real effects.
func realDeps() deps {
	return deps{loadPending: loadPending, baseSource: func(root string) baseline.ClosingSource {
		return baseline.NewWorktrees(root)
	}}
}

// ExecuteRun runs the gauntlet in-process and returns its result; it never
// exits the process. The lock is released on every path; a panic becomes
// StatusError. See execute for the order of the steps.
func ExecuteRun(ctx context.Context, opts Options) RunResult {
	return executeRun(ctx, opts, realDeps())
}

// executeRun is ExecuteRun with the effects of d.
func executeRun(ctx context.Context, opts Options, d deps) (res RunResult) {
	e := newExecution(opts, d)
	defer func() {
		if p := recover(); p != nil {
			res = RunResult{Status: StatusError, ErrorMessage: fmt.Sprintf("internal error: %v", p)}
			res.Message = Message(res.Status, res.Detail())
			e.cons.Printf(lineError, res.ErrorMessage)
		}
	}()
	defer e.cleanup()
	res = e.execute(ctx)
	e.describe(&res)
	res.Message = Message(res.Status, res.Detail())
	e.debug.Event(debuglog.EventRunEnd, fmt.Sprintf("status=%s fixed=%d skipped=%d failed=%d iterations=%d",
		res.Status, res.Fixed, res.Skipped, res.GatesFailed, e.runNumber))
	return res
}

// execution is the state of one ExecuteRun, filled in by its steps in the
// order of execute.
type execution struct {
	opts   Options
	deps   deps
	getenv func(string) string
	now    func() time.Time
	cons   *console.Console
	// Set by setup.
	debug  *debuglog.Log
	root   string
	cfg    *config.Config
	logDir string
	// logRel is the log directory relative to the root, "" when outside it:
	// its files are never changes and never part of a snapshot.
	logRel string
	base   string
	ci     bool
	// ciHead is the commit a CI run checks (GITHUB_SHA).
	ciHead string
	// lock is held from takeLock to cleanup.
	lock *lock.Lock
	// prev is the execution state the run found (zero after auto-clean).
	prev state.State
	// runDir holds the run's numbered files: the log directory, or its
	// CommitDir space for a look at a past commit (-c).
	runDir string
	// runNumber is N of the run's log files (startRun).
	runNumber int
	// episodeStart is the run number the retry budget of the episode counts
	// from, attempt this run's place in it (1 for its first run).
	episodeStart, attempt int
	// names names the gate files (JobNames), once the jobs are known.
	names *logdir.JobNames
	// Set as the run goes: whether this is a verification run, how many
	// files changed (listed: whether they were listed), whether the run
	// wrote logs (numbered runNumber).
	verification bool
	listed       bool
	changedFiles int
	logged       bool
	// Git questions asked early and answered late, so that independent git
	// processes overlap: changed lists the changes of the run's change scope
	// and refs resolves HEAD, the base branch and the previous snapshot's
	// recorded base (for auto-clean); snap is the run's snapshot of the work
	// tree, taken before the gates when something needs it then, else after
	// them (gatesDone tells which).
	changed   *future[git.Changes]
	refs      *future[git.Refs]
	snap      *future[runSnapshot]
	gatesDone atomic.Bool
	// reviewedSnapshot is true when the run's reviews were given the tree
	// of snap: the state then records that tree even if the gates changed
	// the work tree since, for the next verification run narrows the diff
	// of a review that judged it to the changes since (see finalSnapshot).
	reviewedSnapshot bool
	// loc is where the project sits in its repository (the key of the
	// agent's skip decisions), asked only when decisions are read or kept.
	loc *future[git.Location]
	// baseSrc answers for the base of failed checks with baseline: true
	// (checkRunner); closed by cleanup.
	baseSrc baseline.ClosingSource
	// preExisting are the run's checks that failed as on the base branch
	// (recorded in the execution state).
	preExisting []string
	// reviewDefs fingerprint the definitions of the run's review jobs
	// (recorded in the execution state, see judgedPrevious).
	reviewDefs map[string]string
	// pruned is set once stale worktrees were looked for.
	pruned bool
	// branchSkips are the agent's skip decisions on the branch (for runs
	// with reviews), read once the jobs are known.
	branchSkips []gate.Skip
	// cache is the run's result cache, nil when it uses none; gatesRan
	// tells whether any gate ran (all cached: none), moved whether they
	// changed the work tree (see treeMoved).
	cache    *runCache
	gatesRan bool
	moved    struct {
		once    sync.Once
		changed bool
		err     error
		// checked is true when git was asked (not inferred).
		checked bool
	}
	// changesMemo is what the run found on a miss of the changes memo, to
	// be recorded when the run ends (recordChanges).
	changesMemo *changesMemo
	// memoFiles are the changed paths a hit of the changes memo holds, each
	// with whether it exists as a file; exists answers that question for
	// the run (fileExists).
	memoFiles map[string]bool
	exists    func(string) bool
}

func newExecution(opts Options, d deps) *execution {
	e := &execution{opts: opts, deps: d, getenv: opts.Getenv, now: opts.Now}
	if e.getenv == nil {
		e.getenv = os.Getenv
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.opts.Kinds == "" {
		e.opts.Kinds = KindsAll
	}
	var term io.Writer
	if !opts.Silent {
		term = opts.Stderr
	}
	e.cons = console.New(term)
	return e
}

// execute runs the steps of a run in order: the project and its
// configuration (setup), the lock, the execution state and auto-clean on a
// context change, the run number and the retry limit, change detection,
// the jobs, then the gates (runGates: console log, gates, execution state,
// summary, archiving after a pass).
func (e *execution) execute(ctx context.Context) RunResult {
	if r := e.setup(ctx); r != nil {
		return *r
	}
	if r := e.takeLock(ctx); r != nil {
		return *r
	}
	prev := e.readState()
	// Skips the agent marked since the last run become decisions of the
	// branch the logs were written on, before auto-clean archives them.
	for _, w := range decisions.Harvest(ctx, e.root, e.logDir, entry.JobNames(e.cfg), prev.Branch, e.locate, e.now()) {
		e.cons.Printf(lineWarning, w)
	}
	// The run's changes do not depend on what follows: git lists them while
	// the state is checked.
	spec := e.diffSpec()
	e.refs = lazy(func() (git.Refs, error) { return git.ResolveRefs(ctx, e.root, e.base, prev.WorkingTreeRef) })
	e.changed = e.listChanges(ctx, spec)
	defer e.recordChanges(ctx)
	// A look at a past commit leaves the work tree's logs as they are.
	if !e.pastCommit() {
		cleaned, err := e.autoClean(ctx, prev)
		if r := usageResult(err); r != nil {
			return *r
		}
		if err != nil {
			return e.fail(StatusError, err)
		}
		if cleaned {
			prev = state.State{}
		}
	}
	e.prev = prev
	verification, r := e.startRun()
	if r != nil {
		return *r
	}
	e.verification = verification

	ch, err := e.detect(ctx, spec, verification, prev)
	if errors.Is(err, git.ErrGitMissing) {
		return e.fail(StatusInfrastructureError, err)
	}
	if r := usageResult(err); r != nil {
		return *r
	}
	if err != nil {
		return e.fail(StatusError, err)
	}
	e.listed, e.changedFiles = true, len(ch.files)
	if len(ch.files) == 0 {
		e.cons.Printf(LineNoChanges)
		return RunResult{Status: StatusNoChanges}
	}
	e.cons.Printf(lineChangedFiles, len(ch.files))

	jobs := e.jobs(ch.files)
	e.names = entry.JobNames(e.cfg, jobIDs(jobs)...)
	if len(jobs) == 0 {
		e.cons.Printf(LineNoApplicableGates)
		return RunResult{Status: StatusNoApplicableGates}
	}
	return e.runGates(ctx, ch, jobs, verification)
}

// describe fills in what res says about the run around its gates: the
// project, the base branch, the run number, the changes.
func (e *execution) describe(res *RunResult) {
	res.Root, res.Base, res.Verification = e.root, e.base, e.verification
	res.ChangesListed, res.ChangedFiles = e.listed, e.changedFiles
	if e.logged {
		res.RunNumber = e.runNumber
	}
}

// takeLock takes the run lock, taking over one no live run can hold (see
// lockBounds); a non-nil result ends the run.
func (e *execution) takeLock(ctx context.Context) *RunResult {
	lk, err := lock.AcquireWithin(e.logDir, e.lockBounds(ctx))
	if err != nil {
		status := StatusError
		var held *lock.HeldError
		if errors.As(err, &held) {
			status = StatusLockExists
		} else {
			err = fmt.Errorf("acquire lock: %w", err)
		}
		r := e.fail(status, err)
		return &r
	}
	e.lock = lk
	if lk.Warning != "" {
		e.cons.Printf(lineWarning, lk.Warning)
	}
	return nil
}

// readState reads the execution state of the previous run; the zero State
// when there is none (or it is unreadable, with a warning).
func (e *execution) readState() state.State {
	prev, err := state.Read(e.logDir)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("ignoring unreadable execution state: %v", err))
	}
	if err != nil || prev == nil {
		return state.State{}
	}
	return *prev
}

// cleanup waits for the git questions still running, removes the
// baselines' temporary worktrees, closes the console log and releases the
// lock.
func (e *execution) cleanup() {
	e.changed.wait()
	e.refs.wait()
	e.loc.wait()
	e.closeSnapshot()
	e.closeBaselines()
	if err := e.cons.Close(); err != nil {
		e.cons.Printf(lineWarning, err)
	}
	if e.lock != nil {
		if err := e.lock.Release(); err != nil {
			e.cons.Printf(lineWarning, err)
		}
		e.lock = nil
	}
}

// locate answers where the project sits in its repository, once per run.
func (e *execution) locate(context.Context) (git.Location, error) { return e.loc.get() }

// skips are the agent's skip decisions on the current branch, for the
// review gates among jobs (none without a review job: no git question).
func (e *execution) skips(jobs []gate.Job) []gate.Skip {
	if !hasReview(jobs) {
		return nil
	}
	loc, err := e.loc.get()
	if err != nil {
		e.cons.Printf(lineWarning, decisions.Warning(err))
		return nil
	}
	skips, err := decisions.Load(loc)
	if err != nil {
		e.cons.Printf(lineWarning, decisions.Warning(err))
	}
	return skips
}

// fail prints and returns an error result.
func (e *execution) fail(status GauntletStatus, err error) RunResult {
	e.cons.Printf(lineError, err)
	return RunResult{Status: status, ErrorMessage: err.Error()}
}
