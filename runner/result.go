package runner

import (
	"fmt"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
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
	// run from starting, as LoadProject returns it (no or invalid
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
	// Fixed and Skipped count review violations fixed and skipped in this
	// run (Fixed also counts checks failing before that pass now).
	Fixed   int
	Skipped int
	// Gates are the results of the run's gates, in job order, those never
	// started included.
	Gates []GateResult
}

// Detail is what the result's message adds to its status's text: how many
// gates failed, or what went wrong.
func (r RunResult) Detail() string {
	switch r.Status {
	case StatusFailed:
		if r.GatesRun > 0 && r.GatesNotRun > 0 {
			return fmt.Sprintf("%d of %d gates failed; %d not run.", r.GatesFailed, r.GatesRun, r.GatesNotRun)
		}
		if r.GatesRun > 0 {
			return fmt.Sprintf("%d of %d gates failed.", r.GatesFailed, r.GatesRun)
		}
	case StatusError, StatusInfrastructureError, StatusLockExists:
		return r.ErrorMessage
	}
	return ""
}

// GateResult is the outcome of one gate of a run: what reports and a
// result cache read.
type GateResult struct {
	// JobID is `<kind>:<entry point>:<gate>`.
	JobID string
	// Kind is "check" or "review"; Gate the gate's name; EntryPoint the
	// expanded entry point it ran on.
	Kind, Gate, EntryPoint string
	// Status is "pass", "fail", "error" or "not_run" (never started: a
	// fail_fast check did not pass before it).
	Status  string
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
}

// OutputTailLines bounds GateResult.Output.
const OutputTailLines = 40

// SlotResult is the outcome of one review slot.
type SlotResult struct {
	Adapter string
	Index   int
	// Status is "pass", "fail", "error" or "skipped_prior_pass".
	Status            string
	Message           string
	LogPath, JSONPath string
	// Open counts the slot's open violations.
	Open     int
	Duration time.Duration
	// Violations are the slot's open violations (status new), in the
	// reviewer's order.
	Violations []Violation
}

// Violation is one open review violation, as the agent acts on it.
type Violation struct {
	// ID is the short stable id `agent-gauntlet update-review` takes.
	ID string
	// File is the path from the project root; Line the line number, or
	// "?" when the reviewer gave none.
	File, Line string
	// Priority is critical, high, medium or low.
	Priority string
	// Issue says what is wrong; Fix, when given, how to fix it.
	Issue, Fix string
}

// gateResults turns the scheduler's results into the run's gate list.
func gateResults(jobs []gate.Job, results []gate.Result) []GateResult {
	byID := make(map[string]gate.Job, len(jobs))
	for _, j := range jobs {
		byID[j.ID] = j
	}
	out := make([]GateResult, 0, len(results))
	for _, r := range results {
		j := byID[r.JobID]
		g := GateResult{JobID: r.JobID, Kind: string(j.Kind), Gate: j.Name, EntryPoint: j.EntryPoint,
			Status: string(r.Status), Message: r.Message, Duration: r.Duration, LogPath: r.LogPath,
			Open: r.ErrorCount, Fixed: len(r.Fixed), Skipped: len(r.Skipped), Infrastructure: r.Infrastructure}
		if j.Kind == gate.KindCheck && r.Status != gate.StatusPass && r.LogPath != "" {
			g.Output, g.OutputCut = check.OutputTail(r.LogPath, OutputTailLines)
			g.FixInstructions = j.Check != nil && j.Check.FixInstructions != ""
		}
		for _, s := range r.Slots {
			sr := SlotResult{Adapter: s.Adapter, Index: s.Index, Status: string(s.Status),
				Message: s.Message, LogPath: s.LogPath, JSONPath: s.JSONPath, Open: s.ErrorCount, Duration: s.Duration}
			for _, v := range s.Open {
				sr.Violations = append(sr.Violations, Violation{ID: review.ID(v), File: v.File, Line: parse.LineText(v.Line),
					Priority: v.Priority, Issue: v.Issue, Fix: v.Fix})
			}
			g.Slots = append(g.Slots, sr)
		}
		out = append(out, g)
	}
	return out
}

// Text makes a value from outside (a path, a job id built from a directory
// name, a command) safe inside one line of output: Go-quoted when it holds
// a line break or another character a terminal does not print as itself,
// so that it can never forge a line such as `Status: Passed`. Every
// command prints user-controlled names through it, as the run's console
// does.
func Text(s string) string { return console.Text(s) }
