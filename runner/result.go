package runner

import "github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"

// The results of a run (see runner/internal/outcome/result.go for their
// fields): the run, each gate, each review slot and each violation, with
// what the gate comparison with the base branch and the result cache add.
type (
	// RunResult is the outcome of ExecuteRun.
	RunResult = outcome.RunResult
	// GateResult is the outcome of one gate of a run: what reports and a
	// result cache read.
	GateResult = outcome.GateResult
	// SlotResult is the outcome of one review slot.
	SlotResult = outcome.SlotResult
	// Violation is one review finding and where it is recorded.
	Violation = outcome.Violation
	// BaselineResult is the comparison of a failed check with the same
	// check on the base commit.
	BaselineResult = outcome.BaselineResult
	// CachedFrom names the earlier run that proved a cached pass.
	CachedFrom = outcome.CachedFrom
	// GateStatus is the outcome of one gate or one review slot.
	GateStatus = outcome.GateStatus
	// ViolationStatus is where a review violation stands.
	ViolationStatus = outcome.ViolationStatus
)

// Gate and slot outcomes (GateStatus).
const (
	GatePass             = outcome.GatePass
	GateFail             = outcome.GateFail
	GateError            = outcome.GateError
	GateNotRun           = outcome.GateNotRun
	GatePreExisting      = outcome.GatePreExisting
	SlotSkippedPriorPass = outcome.SlotSkippedPriorPass
)

// GateStatuses lists every status a gate can end with, SlotStatuses every
// status of a review slot and ViolationStatuses every status of a
// violation: what reports and their schemas enumerate.
var (
	GateStatuses      = outcome.GateStatuses
	SlotStatuses      = outcome.SlotStatuses
	ViolationStatuses = outcome.ViolationStatuses
)

// Violation statuses: reported and still open, confirmed fixed by the
// reviewer, or skipped by the agent.
const (
	ViolationNew     = outcome.ViolationNew
	ViolationFixed   = outcome.ViolationFixed
	ViolationSkipped = outcome.ViolationSkipped
)

// The kinds of gates (GateResult.Kind, DetectedJob.Kind).
const (
	KindCheck  = outcome.KindCheck
	KindReview = outcome.KindReview
)

// PreExistingLabel names the failures the base branch has too (status
// GatePreExisting) wherever they are listed for people.
const PreExistingLabel = outcome.PreExistingLabel

// SafeText makes a value from outside (a path, a job id built from a
// directory name, a reviewer's or an agent's words) safe inside one line of
// output: Go-quoted when it holds a line break or another character a
// terminal does not print as itself, so that it can never forge a line
// such as `Status: Passed`. Every command prints user-controlled names
// through it, as the run's console does.
func SafeText(s string) string { return outcome.SafeText(s) }
