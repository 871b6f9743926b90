package runner

import (
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// statusFacts is everything said about one status.
type statusFacts struct {
	// message is the one-line message of the status (RunResult.Message and
	// the stop hook's answer); a detail, when there is one, follows it.
	message string
	// routine marks outcomes nobody needs to be told about (see
	// hookproto.Response.Routine).
	routine bool
	// summary is the status text of the console summary, `Status: <text>`;
	// "" for statuses that print no summary.
	summary string
}

// statuses is the one table of what each status says.
var statuses = map[GauntletStatus]statusFacts{
	StatusPassed:             {"✓ Gauntlet passed — every gate passed.", true, "Passed"},
	StatusPassedWithWarnings: {"✓ Gauntlet passed with warnings — some review issues were skipped.", false, "Passed with warnings"},
	StatusNoApplicableGates:  {"✓ Gauntlet passed — no gate applies to the changed files.", true, ""},
	StatusNoChanges:          {"✓ Gauntlet passed — no changes to verify.", true, ""},
	StatusFailed:             {"✗ Gauntlet failed — the issues must be fixed before stopping.", false, "Failed"},
	StatusRetryLimitExceeded: {"⚠ Gauntlet gave up — retry limit exceeded; a human should review the remaining issues.", false, "Retry limit exceeded"},
	StatusLockExists:         {"⏭ Gauntlet skipped — another gauntlet run is in progress.", true, ""},
	StatusIntervalNotElapsed: {"⏭ Gauntlet skipped — the run interval has not elapsed since the last run.", true, ""},
	StatusNoConfig:           {"○ Not a gauntlet project — " + config.ErrNotFound.Error() + ".", true, ""},
	StatusStopHookActive:     {"↺ Stop hook already active — allowing the stop to prevent an infinite loop.", true, ""},
	StatusStopHookDisabled:   {"○ Stop hook disabled — the gauntlet was not run.", true, ""},
	StatusInvalidInput:       {"⚠ Invalid hook input — allowing the stop.", false, ""},
	// A run whose only problems were reviewers that could not run: not a
	// termination condition, but the stop hook approves it.
	StatusInfrastructureError: {"⚠ Gauntlet could not run — allowing the stop.", false, "Error"},
	StatusError:               {"⚠ Stop hook error — allowing the stop.", false, ""},
}

// maxDetail bounds the detail of a message, in runes.
const maxDetail = 500

// Message is the one-line message of status, followed by detail when given
// (white space runs folded to one space, at most 500 runes).
func Message(status GauntletStatus, detail string) string {
	text := statuses[status].message
	if text == "" {
		text = fmt.Sprintf("Gauntlet status %s.", status)
	}
	detail = strings.Join(strings.Fields(detail), " ")
	if r := []rune(detail); len(r) > maxDetail {
		detail = string(r[:maxDetail-1]) + "…"
	}
	if detail != "" {
		return text + " " + detail
	}
	return text
}

// IsRoutine reports whether status needs nobody's attention.
func IsRoutine(status GauntletStatus) bool { return statuses[status].routine }

// StatusText is the summary's status text for s ("Passed", "Passed with
// warnings", "Failed", "Retry limit exceeded"); "" for statuses that print
// no summary.
func StatusText(s GauntletStatus) string { return statuses[s].summary }

// StatusLine is the console's last status line for s: `Status: <text>`.
func StatusLine(s GauntletStatus) string { return console.StatusLinePrefix + StatusText(s) }

// TerminationStatuses are the statuses whose console status line lets an
// agent stop: the stop hook's termination conditions.
var TerminationStatuses = []GauntletStatus{StatusPassed, StatusPassedWithWarnings, StatusRetryLimitExceeded}

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
	lineNotApplicable = "Not applicable: %s (%s)"
	linePreviousFails = "Found %d gate(s) with %d previous violation(s)."
	lineInterrupted   = "Run interrupted; gates were stopped."
	lineWarning       = "Warning: %s"
	lineError         = "Error: %v"
	lineLeftOut       = "Note: %s is left out of the snapshot of the work tree (a repository of its own without a commit, or a file git cannot read): reviews do not see it, checks do."
)

// What a passing run's message adds when the result cache held passes.
const (
	msgAllCached  = "All %d gates passed before on exactly this content (cached): none ran."
	msgSomeCached = "%d of %d gates passed before on exactly this content (cached)."
)

// Why an episode ends at its retry limit (lineFreshBudget).
const (
	reasonNewSession = "a new agent session"
	reasonNewCommit  = "a new commit (HEAD moved)"
)

// retryLimitMessage is printed (and returned) when run n of the episode
// may not start.
func retryLimitMessage(n, allowed, maxRetries int) string {
	return fmt.Sprintf("Retry limit exceeded: run %d exceeds max allowed %d (max_retries: %d). "+
		"Human input required on what to do next; a new agent session or a new commit starts a fresh budget, "+
		"and `agent-gauntlet clean` archives the logs and starts over.",
		n, allowed, maxRetries)
}

// SafeText makes a value from outside (a path, a job id, a reviewer's or an
// agent's words) safe to put inside one line of output: shown Go-quoted
// when it holds a line break or another character a terminal does not
// print as itself, so that it can never start a line of its own.
func SafeText(s string) string { return console.Text(s) }
