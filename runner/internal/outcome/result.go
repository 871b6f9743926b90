package outcome

import (
	"fmt"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

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
	// ConfigErr is the configuration or command-line error that kept the
	// run from starting, as config.OpenProject and config.Project.All
	// return it (no or invalid
	// .gauntlet/config.yml), an unknown -g gate, or a usage error (see
	// IsUsageError: a -c or -b that names nothing, a configured base branch
	// that does not exist, a repository git refuses); nothing of it was
	// printed. The CLI exits 2.
	ConfigErr error
	// GatesRun counts the gates that ran; GatesFailed those that failed or
	// errored; GatesNotRun those the run never started (a fail_fast check
	// did not pass before them), listed in Gates with status "not_run".
	GatesRun    int
	GatesFailed int
	GatesNotRun int
	// GatesCached counts the gates among GatesRun whose pass the result
	// cache held: they did not run.
	GatesCached int
	// GatesLeftOut counts the gates that apply to the changes and that the
	// run left out: their working directory, or their entry point's
	// directory, is not on the disk. A pass with any is no pass of every
	// gate (Headline).
	GatesLeftOut int
	// Fixed and Skipped count review violations fixed and skipped in this
	// run (Fixed also counts checks failing before that pass now).
	Fixed   int
	Skipped int
	// PreExisting counts the checks that failed as they do on the base
	// branch (baseline: true): not caused by the change, not blocking, not
	// in GatesFailed.
	PreExisting int
	// Gates are the results of the run's gates, in job order, those never
	// started included.
	Gates []GateResult
	// Root is the absolute project root ("" when no project was found).
	Root string
	// Base is the effective base branch ("" before the configuration was
	// read).
	Base string
	// RunNumber is N of the run's log files; 0 when the run wrote none
	// (no gate ran).
	RunNumber int
	// ChangesListed is true when the run got as far as listing the changed
	// files; ChangedFiles counts them.
	ChangesListed bool
	ChangedFiles  int
	// Verification is true for a verification run (failure logs of an
	// earlier run were pending).
	Verification bool
	// Unverified says what the run could not look at, "" for nothing: the
	// commits of a base branch that holds HEAD when no earlier point of it
	// is known (an agent's stop records HEAD as that point, so it is said
	// once; a run by hand records none);
	// the changed paths a review's reviewers were not shown as text
	// (gate.Result.NotShown), and the files no review could read.
	Unverified string
	// Once is the part of Unverified the run says once and then takes as
	// told (the commits before the change set that no point anchors, or
	// that the base branch moved over: the point it marks, or the next
	// pass, moves past them), "" for none: whoever shows the answer keeps
	// telling it (verdicts.Book.Tell).
	Once string
}

// Headline is the result's one-line message with detail (Message's):
// a pass that left applicable gates out says that only the gates that ran
// passed, and how many did not run.
func (r RunResult) Headline(detail string) string {
	if r.Status == StatusPassed && r.GatesLeftOut > 0 {
		return withDetail(fmt.Sprintf(partialPass, r.GatesLeftOut), detail)
	}
	return Message(r.Status, detail)
}

// partialPass is the message of a pass that left applicable gates out.
const partialPass = "✓ Gauntlet passed — only the gates that ran passed; %d that apply did not run."

// Detail is what the result's message adds to its status's text: how many
// gates failed, or what went wrong.
func (r RunResult) Detail() string {
	switch r.Status {
	case StatusFailed:
		if r.GatesRun > 0 && r.GatesNotRun > 0 {
			return fmt.Sprintf("%d of %d gates failed; %d not run.", r.GatesFailed, r.GatesRun, r.GatesNotRun) + r.preExistingDetail()
		}
		if r.GatesRun > 0 {
			return fmt.Sprintf("%d of %d gates failed.", r.GatesFailed, r.GatesRun) + r.preExistingDetail()
		}
		if r.ErrorMessage != "" {
			// A run failed before its gates, on what the agent can undo.
			return r.ErrorMessage
		}
	case StatusError, StatusInfrastructureError, StatusLockExists:
		return r.ErrorMessage
	case StatusPassed, StatusPassedWithWarnings:
		return strings.TrimSpace(cachedDetail(r.GatesCached, r.GatesRun) + r.preExistingDetail())
	}
	return r.preExistingDetail()
}

// preExistingDetail names the pre-existing failures, "" when none.
func (r RunResult) preExistingDetail() string {
	var ids []string
	for _, g := range r.Gates {
		if g.Status == GatePreExisting {
			ids = append(ids, console.Text(g.JobID))
		}
	}
	if len(ids) == 0 {
		return ""
	}
	verb := "fail"
	if len(ids) == 1 {
		verb = "fails"
	}
	return fmt.Sprintf(" Not caused by this change, here for information: %s %s on the base branch too.", strings.Join(ids, ", "), verb)
}

// GateStatus is the outcome of one gate (GateResult.Status) or one review
// slot (SlotResult.Status).
type GateStatus string

// Gate and slot outcomes: the values of the runner's gate.Status.
const (
	GatePass  = GateStatus(gate.StatusPass)
	GateFail  = GateStatus(gate.StatusFail)
	GateError = GateStatus(gate.StatusError)
	// GateNotRun is a gate the run never started: a fail_fast check did not
	// pass before it.
	GateNotRun = GateStatus(gate.StatusNotRun)
	// GatePreExisting is a check that failed the same way on the base
	// commit of the change (baseline: true): not caused by the change,
	// reported for information, never blocking.
	GatePreExisting = GateStatus(gate.StatusPreExisting)
	// SlotSkippedPriorPass is a review slot not run again because it
	// passed in an earlier run (num_reviews > 1).
	SlotSkippedPriorPass = GateStatus(gate.StatusSkippedPriorPass)
)

// GateStatuses lists every status a gate can end with, and SlotStatuses
// every status of a review slot: what reports and their schemas enumerate.
var (
	GateStatuses = []GateStatus{GatePass, GateFail, GateError, GateNotRun, GatePreExisting}
	SlotStatuses = []GateStatus{GatePass, GateFail, GateError, SlotSkippedPriorPass}
)

// The kinds of gates (GateResult.Kind).
const (
	KindCheck  = string(gate.KindCheck)
	KindReview = string(gate.KindReview)
)

// cachedDetail says how many of a passing run's gates were cached.
func cachedDetail(cached, run int) string {
	switch {
	case cached == 0:
		return ""
	case cached == run:
		return fmt.Sprintf(msgAllCached, run)
	}
	return fmt.Sprintf(msgSomeCached, cached, run)
}

// GateResult is the outcome of one gate of a run: what reports and a
// result cache read.
type GateResult struct {
	// JobID is `<kind>:<entry point>:<gate>`.
	JobID string
	// Kind is "check" or "review"; Gate the gate's name; EntryPoint the
	// expanded entry point it ran on; WorkingDir the directory it ran in,
	// and File the gate's definition (.gauntlet/checks/<gate>.yml,
	// .gauntlet/reviews/<gate>.md), both relative to the project root.
	Kind, Gate, EntryPoint, WorkingDir, File string
	// Status is one of GateStatuses (GatePreExisting: a check that fails
	// as it does on the base branch, not blocking).
	Status  GateStatus
	Message string
	// Duration is the gate's wall time.
	Duration time.Duration
	// LogPath is a check's log ("" for a review: see Slots).
	LogPath string
	// Slots are a review's slots, by index.
	Slots []SlotResult
	// Open counts open problems (new violations, or one for a failed
	// check); Fixed and Skipped the violations fixed and skipped this run.
	Open, Fixed, Skipped int
	// Exited is true when a check's command exited on its own, ExitCode
	// being its exit code.
	Exited   bool
	ExitCode int
	// TimedOut is true when the gate's timeout ended it (a check's command
	// or one of a review's reviewers); Timeout is the gate's configured
	// timeout (0: none).
	TimedOut bool
	Timeout  time.Duration
	// Infrastructure is true when the gate could not judge the change for
	// reasons the agent cannot fix.
	Infrastructure bool
	// Output is the end of a failed check's output (at most
	// OutputTailLines lines, as printed); OutputCut reports that earlier
	// output was left out (it is in LogPath).
	Output    []string
	OutputCut bool
	// FixInstructions reports that a failed check's log ends with its
	// fix_instructions.
	FixInstructions bool
	// Baseline is what the base branch showed for a failed check with
	// baseline: true (Status is then "pre_existing" or "fail"); nil when
	// it was not asked.
	Baseline *BaselineResult
	// Cached is set when the gate did not run: the result cache held the
	// proof of its pass.
	Cached *CachedFrom
	// Findings are what a check's output reported (diagnostics, tests,
	// error lines), marked new or unchanged when the base was asked; nil
	// when it was not read (see runner/findings).
	Findings *findings.Result
}

// BaselineResult is the comparison of a failed check with the same check
// on the base commit.
type BaselineResult struct {
	// Commit is the base commit ("" when none was found).
	Commit string
	// PreExisting is true when the base fails the same way.
	PreExisting bool
	// Reason says why, or why the base could not be asked.
	Reason string
	// NewLines are error lines the base does not print (normalised, a few).
	NewLines []string
}

// CachedFrom names the earlier run that proved a cached pass.
type CachedFrom struct {
	// At is when that run recorded it.
	At time.Time
	// Run is its run number, Root its project root (its work tree),
	// ConsoleLog its console log as it left it.
	Run        int
	Root       string
	ConsoleLog string
}

// String is the line that names the proving run, as the console prints it.
func (c CachedFrom) String() string {
	return console.CachedProof(gate.Cached{At: c.At, Run: c.Run, Root: c.Root, ConsoleLog: c.ConsoleLog})
}

// OutputTailLines bounds GateResult.Output.
const OutputTailLines = 40

// SlotResult is the outcome of one review slot.
type SlotResult struct {
	Adapter string
	Index   int
	// Status is one of SlotStatuses.
	Status            GateStatus
	Message           string
	LogPath, JSONPath string
	// Open counts the slot's open violations.
	Open     int
	Duration time.Duration
	// TimedOut is true when the reviewer hit the review's timeout.
	TimedOut bool
	// Violations are the slot's violations after this run: the open ones
	// (ViolationNew), then those fixed (ViolationFixed) and skipped
	// (ViolationSkipped) in this run.
	Violations []Violation
}

// ViolationStatus is where a review violation stands after a run.
type ViolationStatus string

// Violation statuses: reported and still open, confirmed fixed by the
// reviewer, or skipped by the agent.
const (
	ViolationNew     = ViolationStatus(gate.ViolationNew)
	ViolationFixed   = ViolationStatus(gate.ViolationFixed)
	ViolationSkipped = ViolationStatus(gate.ViolationSkipped)
)

// ViolationStatuses lists every ViolationStatus.
var ViolationStatuses = []ViolationStatus{ViolationNew, ViolationFixed, ViolationSkipped}

// Violation is one review finding and where it is recorded: in a run's
// result (SlotResult.Violations) or pending in the log directory's review
// records (runner.ReviewViolations). Its line and priority are normalized:
// Line is a number (LineText shows it), Priority one of the priorities.
type Violation struct {
	// ID is the short stable id `agent-gauntlet update-review` takes.
	ID string
	// File is relative to the project root; Line is 1-based, 0 when the
	// reviewer gave no usable line.
	File string
	Line int
	// Issue is what is wrong; Fix how to fix it ("" when not given).
	Issue, Fix string
	// Priority is critical, high, medium or low.
	Priority string
	Status   ViolationStatus
	// Result is the agent's note on a fixed or skipped violation.
	Result string
	// Review is the review job that reported it; Slot and Adapter the
	// review slot; Run the run that wrote its record, Path that record (the
	// slot's review JSON, or a log without one when Editable is false).
	Review   string
	Slot     int
	Adapter  string
	Run      int
	Path     string
	Editable bool
	// Anchor is the hash of the text of its line when it was reported (""
	// in older records): what keeps a skip on the violation when the line
	// moves.
	Anchor string
}

// LineText is the violation's line for people: the number, or "?".
func (v Violation) LineText() string {
	if v.Line < 1 {
		return "?"
	}
	return fmt.Sprint(v.Line)
}

// What a passing run's message adds when the result cache held passes.
const (
	msgAllCached  = "All %d gates passed before on exactly this content (cached): none ran."
	msgSomeCached = "%d of %d gates passed before on exactly this content (cached)."
)

// PreExistingLabel names the failures the base branch has too (status
// GatePreExisting) wherever they are listed for people.
const PreExistingLabel = console.PreExistingLabel

// SafeText makes a value from outside safe inside one line of output (see
// console.Text).
func SafeText(s string) string { return console.Text(s) }
