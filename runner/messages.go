package runner

import "fmt"

// Console status texts: the summary prints "Status: " + StatusText(s).
// Passed, Passed with warnings and Retry limit exceeded are the stop hook's
// termination conditions.
var statusTexts = map[GauntletStatus]string{
	StatusPassed:             "Passed",
	StatusPassedWithWarnings: "Passed with warnings",
	StatusFailed:             "Failed",
	StatusRetryLimitExceeded: "Retry limit exceeded",
	// A run whose only problems were reviewers that could not run: not a
	// termination condition, but the stop hook approves it.
	StatusInfrastructureError: "Error",
}

// StatusText is the summary's status text for s ("Passed", "Passed with
// warnings", "Failed", "Retry limit exceeded"); "" for statuses that print
// no summary.
func StatusText(s GauntletStatus) string { return statusTexts[s] }

// Messages of RunResult.Message, one per status ExecuteRun returns.
const (
	MsgPassed             = "All gates passed."
	MsgPassedWithWarnings = "Passed with warnings — some issues were skipped."
	MsgNoApplicableGates  = "No applicable gates for these changes."
	MsgNoChanges          = "No changes detected."
	MsgFailed             = "Gates failed — issues must be fixed."
	MsgRetryLimitExceeded = "Retry limit exceeded — run `agent-gauntlet clean` to archive and continue."
	MsgLockExists         = "Another gauntlet run is already in progress."
	MsgNoConfig           = "No .gauntlet/config.yml found."
	MsgConfigInvalid      = "The gauntlet configuration is invalid."
	MsgGitMissing         = "git is not installed or not in PATH."
	MsgInterrupted        = "The run was interrupted."
	MsgReviewUnavailable  = "No review could run (no review CLI available, usage limits, or a reviewer that crashed or timed out); nothing the agent can fix."
	MsgError              = "Unexpected error occurred."
)

// Console lines other than gate lines and the summary.
const (
	lineAutoClean     = "Auto-cleaning logs (%s)..."
	lineVerification  = "Existing logs detected — running in verification mode..."
	lineChangedFiles  = "Found %d changed file(s)."
	lineRunning       = "Running %d gate(s)..."
	linePreviousFails = "Found %d gate(s) with %d previous violation(s)."
	lineInterrupted   = "Run interrupted; gates were stopped."
	lineWarning       = "Warning: %s"
)

// retryLimitMessage is printed (and returned) when run n may not start.
func retryLimitMessage(n, allowed, maxRetries int) string {
	return fmt.Sprintf("Retry limit exceeded: run %d exceeds max allowed %d (max_retries: %d). "+
		"Human input required on what to do next; run `agent-gauntlet clean` to archive the logs and start over.",
		n, allowed, maxRetries)
}
