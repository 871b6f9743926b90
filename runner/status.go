package runner

import "github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"

// GauntletStatus is the one status type of every gauntlet outcome. ExecuteRun
// returns it, the CLI derives its exit code from it, the stop hook writes it
// unchanged into its JSON answer and the debug log records it.
type GauntletStatus = outcome.GauntletStatus

// Every GauntletStatus value.
const (
	StatusPassed              = outcome.StatusPassed
	StatusPassedWithWarnings  = outcome.StatusPassedWithWarnings
	StatusNoApplicableGates   = outcome.StatusNoApplicableGates
	StatusNoChanges           = outcome.StatusNoChanges
	StatusFailed              = outcome.StatusFailed
	StatusRetryLimitExceeded  = outcome.StatusRetryLimitExceeded
	StatusLockExists          = outcome.StatusLockExists
	StatusIntervalNotElapsed  = outcome.StatusIntervalNotElapsed
	StatusNoConfig            = outcome.StatusNoConfig
	StatusStopHookActive      = outcome.StatusStopHookActive
	StatusStopHookDisabled    = outcome.StatusStopHookDisabled
	StatusInvalidInput        = outcome.StatusInvalidInput
	StatusInfrastructureError = outcome.StatusInfrastructureError
	StatusError               = outcome.StatusError
)

// AllStatuses lists every status; TerminationStatuses those whose console
// status line lets an agent stop (the stop hook's termination conditions).
var (
	AllStatuses         = outcome.AllStatuses
	TerminationStatuses = outcome.TerminationStatuses
)

// IsBlocking reports whether s must block an agent from stopping: only failed does.
func IsBlocking(s GauntletStatus) bool { return outcome.IsBlocking(s) }

// ExitCode is the process exit code of `agent-gauntlet run` for s:
// 0 for success outcomes, 1 otherwise.
func ExitCode(s GauntletStatus) int { return outcome.ExitCode(s) }

// Message is the one-line message of status, followed by detail when given
// (white space runs folded to one space, at most 500 runes).
func Message(status GauntletStatus, detail string) string { return outcome.Message(status, detail) }

// IsRoutine reports whether status needs nobody's attention.
func IsRoutine(status GauntletStatus) bool { return outcome.IsRoutine(status) }

// StatusLine is the console's last status line for s: `Status: <text>`.
func StatusLine(s GauntletStatus) string { return outcome.StatusLine(s) }
