package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/sched"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// Kinds selects which gate kinds a run executes.
type Kinds string

// The gate kinds of `run`, `check` and `review`.
const (
	KindsAll     Kinds = "all"
	KindsChecks  Kinds = "checks"
	KindsReviews Kinds = "reviews"
)

// Options configure one ExecuteRun.
type Options struct {
	// Dir is the project root or a directory below it; empty means the process cwd.
	Dir string
	// Kinds selects checks, reviews or both; empty means KindsAll.
	Kinds Kinds
	// Command names the invoking command for the debug log ("run", "check",
	// "review", "stop-hook").
	Command string
	// BaseBranch overrides base_branch (-b).
	BaseBranch string
	// Gate restricts the run to one gate name (-g).
	Gate string
	// WorkingDir restricts the run to the gates whose working directory is
	// this path relative to the project root (--working-directory): one job
	// of `ci list-jobs`.
	WorkingDir string
	// Commit reviews one commit (-c).
	Commit string
	// Uncommitted restricts the changes to staged, unstaged and untracked (-u).
	Uncommitted bool
	// Silent sends nothing to Stdout/Stderr; logs are written as usual.
	Silent bool
	// Stdout and Stderr are the terminal; nil means discard. Every line a
	// run prints (progress, gate lines, summary, errors) goes to Stderr;
	// Stdout is left alone.
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// RunResult is the outcome of ExecuteRun.
type RunResult struct {
	Status GauntletStatus
	// Message is the status's one-line message with the result's Detail.
	Message string
	// ConsoleLogPath is the absolute path of this run's console.N.log; after
	// a passing run, its archived path in previous/. Runs that execute no
	// gate write no console log: for a refused run (retry limit) it is the
	// latest existing console log, otherwise "".
	ConsoleLogPath string
	// ErrorMessage details an error status (and lock_exists, no_config,
	// retry_limit_exceeded refusals).
	ErrorMessage string
	// ConfigError is true when the run could not start because of the
	// configuration or the command line (no or invalid .gauntlet/config.yml,
	// an unknown -g gate): the CLI exits 2.
	ConfigError bool
	// GatesRun counts the gates that ran; GatesFailed those that failed or
	// errored.
	GatesRun    int
	GatesFailed int
	// Fixed and Skipped count review violations fixed and skipped in this
	// run (Fixed also counts checks failing before that pass now).
	Fixed   int
	Skipped int
}

// Detail is what the result's message adds to its status's text: how many
// gates failed, or what went wrong.
func (r RunResult) Detail() string {
	switch r.Status {
	case StatusFailed:
		if r.GatesRun > 0 {
			return fmt.Sprintf("%d of %d gates failed.", r.GatesFailed, r.GatesRun)
		}
	case StatusError, StatusInfrastructureError:
		return r.ErrorMessage
	}
	return ""
}

// deps are the effects of a run that tests replace.
type deps struct {
	// loadPending reads what earlier runs left to verify.
	loadPending func(logDir, gateName string) (*gate.Pending, []string, error)
}

// realDeps are the real effects.
func realDeps() deps { return deps{loadPending: loadPending} }

// ExecuteRun runs the gauntlet in-process and returns its result; it never
// exits the process. Order: project root and configuration, git, debug
// log, effective base branch, lock, auto-clean on context change, run
// number and retry limit, change detection, jobs, console log, gates,
// execution state, summary, clean after a pass. The lock is released on
// every path; a panic becomes StatusError.
func ExecuteRun(ctx context.Context, opts Options) RunResult {
	return executeRun(ctx, opts, realDeps())
}

// executeRun is ExecuteRun with the effects of d.
func executeRun(ctx context.Context, opts Options, d deps) (res RunResult) {
	r := newExecution(opts, d)
	defer func() {
		if p := recover(); p != nil {
			res = RunResult{Status: StatusError, ErrorMessage: fmt.Sprintf("internal error: %v", p)}
			res.Message = Message(res.Status, res.Detail())
			r.cons.Printf(lineError, res.ErrorMessage)
		}
	}()
	defer r.cleanup()
	res = r.execute(ctx)
	res.Message = Message(res.Status, res.Detail())
	r.debug.Event(EventRunEnd, fmt.Sprintf("status=%s fixed=%d skipped=%d failed=%d iterations=%d",
		res.Status, res.Fixed, res.Skipped, res.GatesFailed, r.runNumber))
	return res
}

// execution is the state of one ExecuteRun.
type execution struct {
	opts      Options
	deps      deps
	getenv    func(string) string
	now       func() time.Time
	cons      *console.Console
	debug     *DebugLog
	root      string
	cfg       *config.Config
	logDir    string
	base      string
	ci        bool
	lock      *lock.Lock
	runNumber int
	// logRel is the log directory relative to the root, "" when outside it:
	// its files are never changes and never part of a snapshot.
	logRel string
	// refs resolves HEAD, the base branch and the previous snapshot's
	// recorded base in one git process, for auto-clean.
	refs *future[git.Refs]
	// snap is the run's snapshot of the work tree: taken before the gates
	// when something needs it then, next to the gates when they take long,
	// else after them.
	snap *future[runSnapshot]
	// gatesDone is set when every gate has ended.
	gatesDone atomic.Bool
	// changed lists the changes of the run's change scope.
	changed *future[git.Changes]
	// since is where the change set verified by a chain of verification
	// runs began, when known (see previousChanges): recorded in the
	// snapshot, so the next run of the chain finds it again.
	since string
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

// cleanup waits for the git questions still running, closes the console
// log and releases the lock.
func (e *execution) cleanup() {
	e.changed.wait()
	e.refs.wait()
	e.closeSnapshot()
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

// fail prints and returns an error result.
func (e *execution) fail(status GauntletStatus, err error) RunResult {
	e.cons.Printf(lineError, err)
	return RunResult{Status: status, ErrorMessage: err.Error()}
}

// commandLine renders the COMMAND event: the command and its flags.
func (e *execution) commandLine() string {
	cmd := e.opts.Command
	if cmd == "" {
		cmd = "run"
	}
	parts := []string{cmd}
	if e.opts.BaseBranch != "" {
		parts = append(parts, "-b", e.opts.BaseBranch)
	}
	if e.opts.Gate != "" {
		parts = append(parts, "-g", e.opts.Gate)
	}
	if e.opts.WorkingDir != "" {
		parts = append(parts, "--working-directory", e.opts.WorkingDir)
	}
	if e.opts.Commit != "" {
		parts = append(parts, "-c", e.opts.Commit)
	}
	if e.opts.Uncommitted {
		parts = append(parts, "-u")
	}
	return strings.Join(parts, " ")
}

// IsCI reports CI mode: CI=true or GITHUB_ACTIONS=true.
func IsCI(getenv func(string) string) bool {
	return getenv(config.EnvCI) == "true" || getenv(config.EnvGitHubActions) == "true"
}

// EffectiveBaseBranch is -b, else GITHUB_BASE_REF in CI mode, else the
// configured base_branch.
func EffectiveBaseBranch(flag string, cfg *config.Config, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if IsCI(getenv) {
		if ref := getenv(config.EnvGitHubBaseRef); ref != "" {
			return ref
		}
	}
	return cfg.BaseBranch
}

// setup finds the root, loads the configuration and opens the debug log.
// It returns a non-nil result when the run cannot go on.
func (e *execution) setup(ctx context.Context) *RunResult {
	dir := e.opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			r := e.fail(StatusError, fmt.Errorf("get working directory: %w", err))
			return &r
		}
		dir = wd
	}
	root, cfg, warnings, found, err := loadProject(dir)
	for _, w := range warnings {
		e.cons.Printf(lineWarning, w)
	}
	if err != nil {
		r := e.fail(StatusError, err)
		if !found {
			r = e.fail(StatusNoConfig, err)
		}
		r.ConfigError = true
		return &r
	}
	e.root, e.cfg = root, cfg
	e.logDir = cfg.LogDirPath()
	e.logRel = insideRel(root, e.logDir)
	global, gerr := config.LoadGlobal(config.GlobalPath(e.getenv))
	if gerr != nil {
		e.cons.Printf(lineWarning, gerr)
	}
	e.debug = OpenDebugLog(e.logDir, config.ResolveDebugLog(cfg.DebugLog, global), e.now)
	e.debug.Event(EventCommand, e.commandLine())

	if err := git.Available(); err != nil {
		r := e.fail(StatusInfrastructureError, err)
		return &r
	}
	e.ci = IsCI(e.getenv)
	e.base = EffectiveBaseBranch(e.opts.BaseBranch, cfg, e.getenv)
	e.snap = lazy(func() (runSnapshot, error) { return e.takeSnapshot(ctx) })
	if e.opts.Gate != "" && !e.gateExists(e.opts.Gate) {
		r := e.fail(StatusError, fmt.Errorf("no %s named %q in %s", e.kindsNoun(), e.opts.Gate, config.Dir))
		r.ConfigError = true
		return &r
	}
	if err := e.checkWorkingDir(); err != nil {
		r := e.fail(StatusError, err)
		r.ConfigError = true
		return &r
	}
	return nil
}

// checkWorkingDir checks --working-directory: a directory inside the
// project, named relative to its root.
func (e *execution) checkWorkingDir() error {
	wd := e.opts.WorkingDir
	if wd == "" {
		return nil
	}
	clean := filepath.Clean(wd)
	if filepath.IsAbs(wd) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--working-directory %q: must be a directory relative to the project root %s", wd, e.root)
	}
	if fi, err := os.Stat(filepath.Join(e.root, clean)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--working-directory %q: no such directory in the project root %s", wd, e.root)
	}
	return nil
}

// kindsNoun names the gates of the run's kinds, for messages.
func (e *execution) kindsNoun() string {
	switch e.opts.Kinds {
	case KindsChecks:
		return "check gate"
	case KindsReviews:
		return "review gate"
	}
	return "check or review gate"
}

// gateExists reports whether a gate of the run's kinds is called name.
func (e *execution) gateExists(name string) bool {
	_, isCheck := e.cfg.Checks[name]
	_, isReview := e.cfg.Reviews[name]
	return (isCheck && e.opts.Kinds != KindsReviews) || (isReview && e.opts.Kinds != KindsChecks)
}

func (e *execution) execute(ctx context.Context) RunResult {
	if r := e.setup(ctx); r != nil {
		return *r
	}

	lk, err := lock.Acquire(e.logDir)
	if err != nil {
		var held *lock.HeldError
		if errors.As(err, &held) {
			return e.fail(StatusLockExists, err)
		}
		return e.fail(StatusError, fmt.Errorf("acquire lock: %w", err))
	}
	e.lock = lk
	if lk.Warning != "" {
		e.cons.Printf(lineWarning, lk.Warning)
	}

	prev, err := state.Read(e.logDir)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("ignoring unreadable execution state: %v", err))
		prev = nil
	}
	// The changes of the run's change scope do not depend on what follows:
	// git lists them while the state is checked.
	spec := e.diffSpec()
	e.changed = async(func() (git.Changes, error) { return git.ChangedFiles(ctx, e.root, spec) })
	snapshot := ""
	if prev != nil {
		snapshot = prev.WorkingTreeRef
	}
	e.refs = lazy(func() (git.Refs, error) { return git.ResolveRefs(ctx, e.root, e.base, snapshot) })
	if prev != nil && archivable(e.logDir) {
		e.refs.start()
		cleaned, err := e.autoClean(ctx, prev)
		if err != nil {
			return e.fail(StatusError, err)
		}
		if cleaned {
			prev = nil
		}
	}

	pending, err := logdir.HasPendingLogs(e.logDir)
	if err != nil {
		return e.fail(StatusError, err)
	}
	verification := pending && e.opts.Commit == ""
	e.runNumber, err = logdir.NextRunNumber(e.logDir)
	if err != nil {
		return e.fail(StatusError, err)
	}
	if retryLimitReached(e.runNumber, e.cfg.MaxRetries) {
		msg := retryLimitMessage(e.runNumber, e.cfg.MaxRetries+1, e.cfg.MaxRetries)
		e.cons.Printf("%s", msg)
		latest, _ := logdir.LatestConsoleLog(e.logDir)
		return RunResult{Status: StatusRetryLimitExceeded, ErrorMessage: msg, ConsoleLogPath: latest}
	}
	if verification {
		e.cons.Printf(lineVerification)
	}

	ch, err := e.detect(ctx, spec, e.changed, verification, prev)
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) {
			return e.fail(StatusInfrastructureError, err)
		}
		return e.fail(StatusError, err)
	}
	if len(ch.files) == 0 {
		e.cons.Printf(LineNoChanges)
		return RunResult{Status: StatusNoChanges}
	}
	e.cons.Printf(lineChangedFiles, len(ch.files))

	jobs, warnings := entry.Jobs(e.cfg, entry.Expand(e.root, e.cfg.EntryPoints, ch.files), entry.Filter{
		Checks: e.opts.Kinds != KindsReviews, Reviews: e.opts.Kinds != KindsChecks, CI: e.ci, Gate: e.opts.Gate, WorkingDir: e.opts.WorkingDir,
	})
	for _, w := range warnings {
		e.cons.Printf("%s", w)
	}
	if len(jobs) == 0 {
		e.cons.Printf(LineNoApplicableGates)
		return RunResult{Status: StatusNoApplicableGates}
	}
	return e.runGates(ctx, ch, jobs, verification)
}

// detachedHEAD is what git.Branch returns when HEAD is detached.
const detachedHEAD = "HEAD"

// autoClean archives the logs and the state when the state's branch is not
// the current branch, or its commit has been merged into the base branch.
func (e *execution) autoClean(ctx context.Context, prev *state.State) (bool, error) {
	reason := ""
	// The branch decides alone most of the time; the refs are on their way.
	branch, err := git.Branch(ctx, e.root)
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) {
			return false, err
		}
		e.cons.Printf(lineWarning, fmt.Sprintf("cannot read the current branch, no auto-clean: %v", err))
		return false, nil
	}
	// A detached HEAD (mid-rebase, a checked-out commit) is named "HEAD":
	// that is no branch, so no branch change either way; the merged-commit
	// rule alone decides.
	if prev.Branch != "" && prev.Branch != detachedHEAD && branch != detachedHEAD && prev.Branch != branch {
		reason = CleanReasonBranchChanged
	} else if e.merged(ctx, prev) {
		reason = CleanReasonCommitMerged
	}
	if reason == "" {
		return false, nil
	}
	// Clean is a no-op when no log is left; the stale state then stays (it
	// is harmless without logs) and nothing is said.
	cleaned, err := logdir.Clean(e.logDir, true)
	if err != nil {
		return false, fmt.Errorf("auto-clean %s: %w", e.logDir, err)
	}
	if cleaned {
		e.cons.Printf(lineAutoClean, reason)
		e.debug.Clean("auto", reason)
	}
	return cleaned, nil
}

// merged reports whether the state's commit is now reachable from the base
// branch, as work that was not already in the base branch when it was
// verified (the base recorded in the working-tree snapshot); without a
// recorded base, a commit still checked out (HEAD) is not called merged, so
// work sitting uncommitted on top of the base branch keeps its logs.
func (e *execution) merged(ctx context.Context, prev *state.State) bool {
	if prev.Commit == "" {
		return false
	}
	refs, err := e.refs.get()
	if err != nil || refs.BaseErr != nil || refs.Base == "" {
		return false
	}
	in, err := isAncestor(ctx, e.root, prev.Commit, refs.Base)
	if err != nil || !in {
		return false
	}
	if recorded := refs.SnapshotBase; recorded != "" {
		already, err := isAncestor(ctx, e.root, prev.Commit, recorded)
		return err == nil && !already
	}
	return refs.Head != prev.Commit
}

// isAncestor is git.IsAncestor without a git process for a commit and
// itself.
func isAncestor(ctx context.Context, root, commit, of string) (bool, error) {
	if commit == of {
		return true, nil
	}
	return git.IsAncestor(ctx, root, commit, of)
}

// changes is what detect found.
type changes struct {
	// spec is the run's change scope: the changes since the previous run's
	// snapshot in verification mode (when there are any), else base.
	spec gate.DiffSpec
	// base is the scope of the mode chosen by the flags (local, CI, ...).
	base gate.DiffSpec
	// files are the changed paths.
	files []string
	// since are the paths changed since the previous run's snapshot
	// (verification mode only).
	since []string
}

// diffSpec is the change scope the flags and the environment choose.
func (e *execution) diffSpec() gate.DiffSpec {
	return diffSpecFor(e.base, e.opts.Commit, e.opts.Uncommitted, e.ci, e.getenv)
}

// detect returns the change scope of the run and its changed files:
// changed lists the changes of spec. In verification mode the files changed since
// the previous run's snapshot are added to the normal change set (so
// committing a non-fix never hides a failure), and reviews see the changes
// since that snapshot.
func (e *execution) detect(ctx context.Context, spec gate.DiffSpec, changed *future[git.Changes], verification bool, prev *state.State) (changes, error) {
	ch, err := changed.get()
	if err != nil {
		return changes{}, err
	}
	for _, w := range ch.Warnings {
		e.cons.Printf("%s", w)
	}
	c := changes{spec: spec, base: spec, files: withoutDir(ch.Files, e.logRel)}
	if !verification || prev == nil || prev.WorkingTreeRef == "" {
		return c, nil
	}
	ok, err := git.ObjectExists(ctx, e.root, prev.WorkingTreeRef)
	if err != nil {
		return changes{}, err
	}
	if !ok {
		e.cons.Printf(lineWarning, fmt.Sprintf("the previous run's working tree snapshot %s is gone; verifying all changes", prev.WorkingTreeRef))
		return c, nil
	}
	tree, err := e.snapshotTree(ctx)
	if err != nil {
		if errors.Is(err, git.ErrGitMissing) || ctx.Err() != nil {
			return changes{}, err
		}
		e.cons.Printf(lineWarning, fmt.Sprintf("cannot snapshot the work tree, verifying all changes: %v", err))
		return c, nil
	}
	if refs, err := e.refs.get(); err == nil {
		e.since = refs.SnapshotSince
	}
	fix := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: e.base, FixBase: prev.WorkingTreeRef, WorkTree: tree}
	since, err := git.ChangedFiles(ctx, e.root, fix)
	if err != nil {
		return changes{}, err
	}
	c.since = withoutDir(since.Files, e.logRel)
	c.files = unionFiles(c.files, c.since)
	if c.base.Mode != gate.DiffCommit && c.base.Mode != gate.DiffCI {
		c.base.WorkTree = tree
	}
	c.spec = c.base
	if len(c.since) > 0 && !e.opts.Uncommitted {
		c.spec = fix
	}
	if len(c.files) == 0 {
		return e.previousChanges(ctx, c, prev, tree)
	}
	return c, nil
}

// previousChanges is the change set of a verification run that found none:
// nothing changed since the previous run's snapshot, and the normal scope is
// empty too. That happens when the failing work was committed onto the base
// branch itself (HEAD is the base, so base...HEAD is empty): reporting
// no_changes would approve while failure logs are pending. The previous
// run's own change set is still in the work tree, though: it ran from the
// merge base of the base branch it recorded in its snapshot and its HEAD
// (its HEAD alone when it recorded none) to its snapshot, and as nothing
// changed since that snapshot, the diff from that point to the work tree
// now is that same change set. That point is recorded in this run's
// snapshot (e.since) and reused by the next runs of the chain, whose own
// HEAD and base no longer tell it once the work is committed on the base.
// Every changed path counts as touched, so reviews verify their pending
// violations on that diff too. When even that is empty (nothing left of the
// previous changes), the run has nothing to verify and reports no changes.
func (e *execution) previousChanges(ctx context.Context, c changes, prev *state.State, tree string) (changes, error) {
	from := e.since
	if from == "" && prev.Commit != "" {
		from = prev.Commit
		if refs, err := e.refs.get(); err == nil && refs.SnapshotBase != "" {
			mb, err := git.MergeBase(ctx, e.root, refs.SnapshotBase, prev.Commit)
			if err != nil {
				return changes{}, err
			}
			if mb != "" {
				from = mb
			}
		}
	}
	if from == "" {
		return c, nil
	}
	if ok, err := git.ObjectExists(ctx, e.root, from); err != nil || !ok {
		return c, err
	}
	e.since = from
	spec := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: e.base, FixBase: from, WorkTree: tree}
	ch, err := git.ChangedFiles(ctx, e.root, spec)
	if err != nil {
		return changes{}, err
	}
	files := withoutDir(ch.Files, e.logRel)
	if len(files) == 0 {
		return c, nil
	}
	c.files, c.since, c.spec = files, files, spec
	return c, nil
}

// excludes are the directories left out of snapshots.
func (e *execution) excludes() []string {
	if e.logRel == "" {
		return nil
	}
	return []string{e.logRel}
}

// insideRel returns dir relative to root (slash-separated) when dir lies
// strictly inside root, else "".
func insideRel(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// withoutDir drops the files at or below dir ("" keeps everything).
func withoutDir(files []string, dir string) []string {
	if dir == "" {
		return files
	}
	kept := files[:0:0]
	for _, f := range files {
		if f != dir && !strings.HasPrefix(f, dir+"/") {
			kept = append(kept, f)
		}
	}
	return kept
}

// unionFiles appends b's new entries to a.
func unionFiles(a, b []string) []string {
	seen := make(map[string]bool, len(a))
	for _, f := range a {
		seen[f] = true
	}
	for _, f := range b {
		if !seen[f] {
			seen[f] = true
			a = append(a, f)
		}
	}
	return a
}

// reporter prints gate events and records them in the debug log.
type reporter struct {
	cons  *console.Console
	debug *DebugLog
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
	r.debug.Event(EventGateResult, fields)
}

// runGates opens the console log, runs the jobs and finishes the run.
func (e *execution) runGates(ctx context.Context, ch changes, jobs []gate.Job, verification bool) RunResult {
	spec := ch.spec
	consolePath := logdir.ConsoleName(e.runNumber).Path(e.logDir)
	if err := e.cons.Open(consolePath); err != nil {
		return e.fail(StatusError, err)
	}
	res := RunResult{ConsoleLogPath: consolePath}

	var previous *gate.Pending
	if verification {
		var err error
		var warns []string
		previous, warns, err = e.deps.loadPending(e.logDir, e.opts.Gate)
		for _, w := range warns {
			e.cons.Printf(lineWarning, w)
		}
		if err != nil {
			e.cons.Printf(lineWarning, fmt.Sprintf("cannot load previous failures: %v", err))
		}
		if n, v := previous.Count(); n > 0 {
			e.cons.Printf(linePreviousFails, n, v)
		}
	}

	needTree := e.debug != nil
	for _, j := range jobs {
		needTree = needTree || j.Kind == gate.KindReview
	}
	if needTree && spec.WorkTree == "" && spec.Mode != gate.DiffCommit && spec.Mode != gate.DiffCI {
		tree, err := e.snapshotTree(ctx)
		if err != nil {
			e.cons.Printf(lineWarning, err)
		} else {
			spec.WorkTree = tree
		}
	}
	if e.debug != nil {
		mode := "full"
		if verification {
			mode = "verification"
		}
		st, err := git.DiffStats(ctx, e.root, spec)
		if err != nil {
			st.BaseRef = spec.BaseBranch
		}
		e.debug.Event(EventRunStart, fmt.Sprintf("mode=%s base_ref=%s files_changed=%d files_new=%d files_modified=%d files_deleted=%d lines_added=%d lines_removed=%d gates=%d",
			mode, st.BaseRef, st.Changed(), st.New, st.Modified, st.Deleted, st.LinesAdded, st.LinesRemoved, len(jobs)))
	}

	e.cons.Printf(lineRunning, len(jobs))
	env := gate.Env{Root: e.root, LogDir: e.logDir, RunNumber: e.runNumber, Diff: spec, CI: e.ci,
		Config: e.cfg, Previous: previous, Console: e.cons}
	results := sched.Run(ctx, jobs, env, sched.Options{
		AllowParallel:   e.cfg.AllowParallel,
		Check:           check.Run,
		Review:          e.reviewRunner(ch),
		Preflight:       preflight,
		PreflightResult: check.PreflightResult,
		Report:          reporter{cons: e.cons, debug: e.debug},
	})
	e.gatesDone.Store(true)

	sum := console.Summarize(results, previous)
	res.GatesRun, res.GatesFailed, res.Fixed, res.Skipped = len(results), sum.GatesFailed, sum.Fixed, sum.Skipped
	res.Status = decideStatus(outcome{
		interrupted: ctx.Err() != nil, gatesFailed: sum.GatesFailed, skipped: sum.Skipped,
		onlyInfrastructure: onlyInfrastructure(results), run: e.runNumber, maxRetries: e.cfg.MaxRetries,
	})
	switch res.Status {
	case StatusError:
		e.cons.Printf(lineInterrupted)
		res.ErrorMessage = fmt.Sprintf("run interrupted: %v", context.Cause(ctx))
		return res
	case StatusInfrastructureError:
		// Nothing the agent can fix: do not block it (seeds: infrastructure
		// problems approve). The errors are in the logs and the message.
		res.ErrorMessage = infrastructureDetail(results)
	}

	e.writeState(ctx)
	e.cons.PrintSummary(sum, e.runNumber, StatusText(res.Status))
	if err := e.cons.Close(); err != nil {
		e.cons.Printf(lineWarning, err)
	}
	if res.Status == StatusPassed && e.mayClean(jobs) {
		if _, err := logdir.Clean(e.logDir, false); err != nil {
			e.cons.Printf(lineWarning, fmt.Sprintf("cannot archive the logs: %v", err))
		} else {
			e.debug.Clean("auto", CleanReasonAllPassed)
			archived := filepath.Join(e.logDir, logdir.PreviousDir, filepath.Base(consolePath))
			if _, err := os.Stat(archived); err == nil {
				res.ConsoleLogPath = archived
			}
		}
	}
	return res
}

// mayClean reports whether a passing run may archive the logs. A run that
// covered every gate (all kinds, no -g, no --working-directory, no -c;
// --uncommitted narrows the changes, not the gates) may. A run of one kind
// (check, review), one gate (-g) or one working directory may only when every pending gate log belongs to a gate it just
// ran, and passed: otherwise other gates' pending failures would be
// archived unverified. A -c run checks a commit, not the work tree, and
// never archives.
func (e *execution) mayClean(jobs []gate.Job) bool {
	if e.opts.Commit != "" {
		return false
	}
	if e.opts.Kinds == KindsAll && e.opts.Gate == "" && e.opts.WorkingDir == "" {
		return true
	}
	names, err := logdir.Scan(e.logDir)
	if err != nil {
		return false
	}
	for _, n := range names {
		if n.IsGate() && !ranLog(n, jobs) {
			return false
		}
	}
	return true
}

// ranLog reports whether the gate file name belongs to one of jobs: a
// check's log, or a review's slot log or JSON.
func ranLog(n logdir.Name, jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.ID == n.Job && (j.Kind == gate.KindCheck) == (n.Kind == logdir.KindJobLog) {
			return true
		}
	}
	return false
}

// reviewRunner runs the review gates of the run in one review.Session. In
// verification mode a review whose entry point did not change since the
// previous run gets the full diff of the base change set instead of an
// empty one: its pending violations are verified again rather than passing
// as "no changes".
func (e *execution) reviewRunner(ch changes) sched.RunFunc {
	runReview := review.NewSession().Run
	if ch.spec.Mode != gate.DiffFixBase {
		return runReview
	}
	touched := map[string]bool{}
	for _, ep := range entry.Expand(e.root, e.cfg.EntryPoints, ch.since) {
		touched[ep.Path] = true
	}
	base := ch.base
	return func(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
		if !touched[job.EntryPoint] {
			env.Diff = base
		}
		return runReview(ctx, job, env)
	}
}

// preflight checks the program of check jobs; review jobs check their
// adapters themselves.
func preflight(ctx context.Context, job gate.Job, env gate.Env) string {
	if job.Kind != gate.KindCheck {
		return ""
	}
	return check.Preflight(ctx, job, env)
}

// writeState records the branch, commit and a snapshot of the work tree:
// the branch and HEAD are asked of git while the snapshot is taken, or
// the snapshot taken before the gates (for verification or reviews) is
// checked and retaken if the gates changed the work tree.
func (e *execution) writeState(ctx context.Context) {
	e.snap.start()
	hs, err := git.ReadHeadState(ctx, e.root, e.base)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
		return
	}
	branch, head := hs.Branch, hs.Head
	ref, err := e.finalSnapshot(ctx, hs)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("no working tree snapshot: %v", err))
		ref = head
	}
	st := state.State{LastRunCompletedAt: e.now(), Branch: branch, Commit: head, WorkingTreeRef: ref}
	if err := state.Write(e.logDir, st); err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
	}
}

// onlyInfrastructure reports whether every gate that did not pass failed for
// reasons the agent cannot fix (gate.Result.Infrastructure).
func onlyInfrastructure(results []gate.Result) bool {
	found := false
	for _, r := range results {
		if r.Status == gate.StatusPass {
			continue
		}
		if !r.Infrastructure {
			return false
		}
		found = true
	}
	return found
}

// infrastructureDetail names each gate that could not run and why.
func infrastructureDetail(results []gate.Result) string {
	var parts []string
	for _, r := range results {
		if r.Infrastructure {
			parts = append(parts, r.JobID+": "+r.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// archivable reports whether auto-clean could archive anything in dir, or
// cannot tell: without logs there is nothing to do, and no git question
// needs asking.
func archivable(dir string) bool {
	has, err := logdir.HasLogs(dir)
	return has || err != nil
}
