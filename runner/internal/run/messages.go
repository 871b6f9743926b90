package run

import "fmt"

// Console lines other than gate lines and the summary. LineNoChanges and
// LineNoApplicableGates are also what `detect` prints.
const (
	LineNoChanges         = "No changes detected."
	LineNoApplicableGates = "No applicable gates for these changes."
	lineAutoClean         = "Auto-cleaning logs (%s)..."
	lineVerification      = "Existing logs detected — running in verification mode..."
	// lineFreshBudget: why the retry limit of the previous episode no
	// longer applies, and the runs the new budget allows.
	lineFreshBudget   = "Retry limit reached in the previous episode, but %s starts a fresh retry budget of %d run(s)."
	lineChangedFiles  = "Found %d changed file(s)."
	lineRunning       = "Running %d gate(s)..."
	linePreviousFails = "Found %d gate(s) with %d previous violation(s)."
	lineInterrupted   = "Run interrupted; gates were stopped."
	lineWarning       = "Warning: %s"
	// msgStateKept tells that a person's entry at the execution state's
	// name was moved aside (logdir.KeepForeignState).
	msgStateKept = "%s was not agent-gauntlet's execution state (a person's file, a link, a directory): it is kept, moved to %s, and the state is written in its place"
	lineError    = "Error: %v"
	lineUnheld   = "Note: no verdict is cached or taken from the cache: %s."
	lineUncached = "Note: %s is not cached: its command %s."
	lineLeftOut  = "Note: %s is left out of the snapshot of the work tree (a repository of its own without a commit, a file git cannot read, a name git refuses in an index, or an entry named .git that is no repository): reviews see a repository's files, not such a file; checks see both."
)

// Why an episode ends at its retry limit (lineFreshBudget).
const (
	reasonNewSession = "a new agent session"
	reasonNewCommit  = "a new commit (HEAD moved)"
	// reasonFirstFailure is why an episode opens: a run left failures
	// pending.
	reasonFirstFailure = "a run left failures pending"
)

// retryLimitMessage is printed (and returned) when an agent session's run
// n of the episode may not start.
func retryLimitMessage(n, allowed, maxRetries int) string {
	return fmt.Sprintf("Retry limit exceeded: run %d exceeds max allowed %d (max_retries: %d). "+
		"Human input required on what to do next; a new commit starts a fresh budget (another agent session has its own), "+
		"and `agent-gauntlet clean` archives the logs and starts over.",
		n, allowed, maxRetries)
}
