// Package gate holds the types shared by the scheduler and the gate kinds
// (check and review): a job to run, the environment of one run, and results.
package gate

import (
	"io"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// Kind is a gate kind.
type Kind string

// The two gate kinds.
const (
	KindCheck  Kind = "check"
	KindReview Kind = "review"
)

// Status is the outcome of one gate or one review slot.
type Status string

// Gate and slot outcomes.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusError Status = "error"
	// StatusSkippedPriorPass marks a review slot skipped because it passed before.
	StatusSkippedPriorPass Status = "skipped_prior_pass"
	// StatusNotRun marks a job the run never started: a fail_fast check
	// failed before it, or the run was interrupted. It neither passes nor
	// fails and writes no log.
	StatusNotRun Status = "not_run"
	// StatusPreExisting marks a check that failed the same way on the merge
	// base with the base branch (baseline: true): not caused by the change,
	// reported for information, never blocking.
	StatusPreExisting Status = "pre_existing"
)

// Failed reports whether s is a failure that counts against the run (fail
// or error): a pre-existing failure does not.
func (s Status) Failed() bool { return s == StatusFail || s == StatusError }

// Job is one gate applied to one expanded entry point.
type Job struct {
	// ID is `<kind>:<entry point>:<gate name>`.
	ID string
	// Kind tells which of Check and Review is set.
	Kind Kind
	// Name is the gate name.
	Name string
	// EntryPoint is the expanded entry point path.
	EntryPoint string
	// EntryGlob is true when EntryPoint is a glob (the configured path
	// verbatim), false when it is a file or a directory.
	EntryGlob bool
	// Exclude are the exclude patterns of the configured entry point.
	// With EntryPoint and EntryGlob they make the job's scope (see
	// entry.JobScope): the files its review is shown.
	Exclude []string
	// WorkingDir is relative to the project root.
	WorkingDir string
	// Parallel places the job in the parallel lane.
	Parallel bool
	Check    *config.Check
	Review   *config.Review
	// Changed are the changed files a check job receives (${CHANGED_FILES},
	// GAUNTLET_CHANGED_FILES_FILE): those of its entry point that still
	// exist and pass the check's glob, relative to the project root. Nil
	// outside a run (init's trials).
	Changed []string
	// Listed are the paths of the run's change set (the lister of
	// Changed) in a review job's scope, deleted ones included: every one
	// must be shown to its reviewer or named as not shown. Nil outside a
	// run, or when the job is no review.
	Listed []string
}

// DiffMode tells how a review gate computes its diff.
type DiffMode string

// Diff modes, in the precedence order of the review gate.
const (
	// DiffFixBase diffs the work tree (untracked files included) against FixBase.
	DiffFixBase DiffMode = "fixbase"
	// DiffUncommitted diffs staged, unstaged and untracked changes.
	DiffUncommitted DiffMode = "uncommitted"
	// DiffCommit diffs one commit against its parent.
	DiffCommit DiffMode = "commit"
	// DiffCI diffs BaseBranch...Head.
	DiffCI DiffMode = "ci"
	// DiffLocal diffs BaseBranch...HEAD plus uncommitted and untracked changes.
	DiffLocal DiffMode = "local"
)

// DiffSpec is the change scope of one run.
type DiffSpec struct {
	Mode       DiffMode
	BaseBranch string
	// FixBase is the working_tree_ref of the previous run (DiffFixBase).
	FixBase string
	// Commit is the --commit SHA (DiffCommit).
	Commit string
	// Head is GITHUB_SHA or HEAD in CI mode.
	Head string
	// WorkTree is a tree object of the current work tree (tracked and
	// untracked files), computed once per run; "" means compute on demand.
	// The work-tree side of fixbase, uncommitted and local diffs.
	WorkTree string
	// ReadTree is WorkTree with each repository of its own inside the
	// work tree (a submodule, a clone) replaced by the files of its work
	// tree, as a program there reads them: what a review diff shows. ""
	// when not known: a review diff then takes it from a snapshot of its
	// own when WorkTree is "" too, else shows such a repository as git
	// holds it (a commit) and says it did not show its files.
	ReadTree string
}

// NotShown is a changed path a review's diff does not show its reviewer
// as text, and why (binary content, a repository whose files could not be
// read, a link out of the project, a diff cut at its size bound).
type NotShown struct {
	Path string
	Why  string
}

// String is the path and why, as messages name it.
func (n NotShown) String() string { return n.Path + " (" + n.Why + ")" }

// Violation is one review finding, as stored in a review JSON file.
// Line is a number or a string such as "?". ID and Anchor are this tool's
// additions (the TypeScript tool ignores them; a file without them still
// works): the violation's short stable id and the hash of the text of its
// line when it was reported (see the fingerprint package).
type Violation struct {
	File     string `json:"file"`
	Line     any    `json:"line"`
	Issue    string `json:"issue"`
	Fix      string `json:"fix,omitempty"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status,omitempty"`
	Result   any    `json:"result,omitempty"`
	ID       string `json:"id,omitempty"`
	Anchor   string `json:"anchor,omitempty"`
}

// Skip is a standing decision of the agent to skip a violation on the
// run's branch: a later report of the same violation (see the fingerprint
// package) is skipped again, with the same note.
type Skip struct {
	// ID is the violation's id when it was skipped.
	ID string
	// File, Line, Anchor and Issue identify the violation.
	File   string
	Line   int
	Anchor string
	Issue  string
	// Note is the agent's reason.
	Note string
}

// Violation statuses set by the reviewer (new) and by the agent (fixed, skipped).
const (
	ViolationNew     = "new"
	ViolationFixed   = "fixed"
	ViolationSkipped = "skipped"
)

// Env is everything a gate needs from the run around it.
type Env struct {
	// Root is the absolute project root; WorkingDir is relative to it.
	Root string
	// LogDir is the absolute log directory.
	LogDir string
	// Pending is a directory of the run outside the project's work tree
	// where a check's log is written while its command runs, moved into
	// LogDir when it ends (logdir.Install), so that a command reading
	// the work tree never reads its own output; "" writes it in LogDir.
	Pending string
	// Names names the jobs' log files (see logdir.JobNames): every job the
	// configuration can give, so that a job's files keep one name across
	// runs that execute different jobs.
	Names *logdir.JobNames
	// RunNumber is N of this run's log files.
	RunNumber int
	// Diff is this run's change scope.
	Diff DiffSpec
	// CI is true in CI mode (CI=true or GITHUB_ACTIONS=true).
	CI bool
	// Config is the loaded project configuration.
	Config *config.Config
	// Previous is what earlier runs left to verify: nil on a first run,
	// non-nil (maybe empty) in a verification run.
	Previous *Pending
	// Console receives progress lines ([START], [PASS], ...) for the terminal
	// and console.N.log; never nil.
	Console io.Writer
	// Skips are the agent's skip decisions standing on the run's branch,
	// applied to every review (none when nil).
	Skips []Skip
}

// Result is the outcome of one job.
type Result struct {
	JobID    string
	Status   Status
	Message  string
	Duration time.Duration
	// LogPath is the absolute path of the job's log (checks) or "" (reviews:
	// see Slots).
	LogPath string
	// Slots are the per-adapter results of a review gate, sorted by index.
	Slots []Slot
	// ErrorCount counts open problems: violations with status new, or 1 for a
	// failed or erroring check.
	ErrorCount int
	// Exited is true when a check's command exited on its own, ExitCode
	// then being its exit code (128+N for a command exec'ed directly and
	// killed by signal N, as the shell would say).
	Exited   bool
	ExitCode int
	// TimedOut is true when the gate's timeout ended it: a check's
	// command, or one of a review's reviewers (see Slot.TimedOut).
	TimedOut bool
	// Fixed and Skipped list what the reviewer confirmed fixed and what the
	// agent skipped in this run, for the summary.
	Fixed   []Violation
	Skipped []Violation
	// BelowThreshold are the new violations a verification run's reviewers
	// reported below rerun_new_issue_threshold, which the verdict left out:
	// a pass with any is a pass only of a verification run, never of the
	// content (the result cache keeps no such pass).
	BelowThreshold []Violation
	// NotShown are the changed paths of a review's scope its reviewers
	// were not shown as text: the verdict says nothing of them.
	NotShown []NotShown
	// Infrastructure is true when the gate could not judge the change for
	// reasons the agent cannot fix: no review CLI available, every CLI over
	// its usage limit, a reviewer timed out, crashed, or answered without a
	// verdict (no JSON object, no review in it, "fail" without a usable
	// violation). Only an erroring gate sets it, and only when every error
	// is of that kind and no slot failed.
	Infrastructure bool
	// Baseline is what the merge base said about a failed check with
	// baseline: true; nil when it was not asked.
	Baseline *Baseline
	// OutputEnd is where a check's own output ends in its log when
	// something else follows it before the result line (the base run of a
	// baseline); 0 when the output reaches the result line.
	OutputEnd int64
	// Cached is set when the gate did not run: the result cache held the
	// proof that it passed, or failed as on the base branch, on exactly
	// this input.
	Cached *Cached
	// Findings are what a check's output reported (diagnostics, tests,
	// error lines), each marked new or unchanged when the base was
	// asked; nil when the output was not read (a cached pass, a passing
	// check in text format).
	Findings *findings.Result
}

// Baseline is the comparison of a failed check with its run on the merge
// base with the base branch.
type Baseline struct {
	// Commit is the merge base ("" when it could not be found).
	Commit string
	// PreExisting is true when the base fails the same way: the result's
	// status is then StatusPreExisting.
	PreExisting bool
	// Reason says in one line why the failure is, or is not, pre-existing
	// (or why the base could not be run).
	Reason string
	// NewLines name the findings of this run that the base does not have
	// (at most a few, one line each: file:line and message, or the test).
	NewLines []string
	// Hidden says, for a pre-existing failure of a check that may stop at
	// its first failure (findings.MayStopEarly), which part failed and how
	// it may have stopped: what it runs after that ran on neither side and
	// is not verified ("" when every part that failed is known to run all
	// it would).
	Hidden string `json:",omitempty"`
}

// Cached tells which earlier run proved a cached result.
type Cached struct {
	// At is when the proof was stored, Age how long before this run.
	At  time.Time
	Age time.Duration
	// Run is the number of the run that proved it, Root that run's project
	// root (its work tree) and ConsoleLog its console log as it left it.
	Run        int
	Root       string
	ConsoleLog string
	// PreExisting is true for a failure the base branch has too, cached
	// as a pass is (the result's status is then StatusPreExisting).
	PreExisting bool
}

// Slot is the outcome of one review slot (one adapter invocation).
type Slot struct {
	Adapter  string
	Index    int
	Status   Status
	Message  string
	LogPath  string
	JSONPath string
	// PassIteration is the run in which a skipped slot passed.
	PassIteration int
	ErrorCount    int
	// Open are the violations still open after this run (status new).
	Open    []Violation
	Fixed   []Violation
	Skipped []Violation
	// BelowThreshold are the new violations the rerun threshold left out
	// (see Result.BelowThreshold).
	BelowThreshold []Violation
	// TimedOut is true when the reviewer hit the review's timeout.
	TimedOut bool
	// Duration is the wall time of the slot's reviewer runs (0 when skipped).
	Duration time.Duration
	// Infrastructure is true when the slot erred for reasons the agent
	// cannot fix (see Result.Infrastructure).
	Infrastructure bool
}
