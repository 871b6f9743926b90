// Package outcome holds what a run ends with: the one GauntletStatus type
// and what each status says (the one table of messages), and the results
// of a run, its gates, their review slots and violations. The runner
// package re-exports them under the same names; the engine
// (runner/internal/run) makes them.
package outcome

import (
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// GauntletStatus is the one status type of every gauntlet outcome. ExecuteRun
// returns it, the CLI derives its exit code from it, the stop hook writes it
// unchanged into its JSON answer and the debug log records it.
type GauntletStatus string

// Every GauntletStatus value.
const (
	StatusPassed              GauntletStatus = "passed"
	StatusPassedWithWarnings  GauntletStatus = "passed_with_warnings"
	StatusNoApplicableGates   GauntletStatus = "no_applicable_gates"
	StatusNoChanges           GauntletStatus = "no_changes"
	StatusFailed              GauntletStatus = "failed"
	StatusRetryLimitExceeded  GauntletStatus = "retry_limit_exceeded"
	StatusLockExists          GauntletStatus = "lock_exists"
	StatusIntervalNotElapsed  GauntletStatus = "interval_not_elapsed"
	StatusNoConfig            GauntletStatus = "no_config"
	StatusStopHookActive      GauntletStatus = "stop_hook_active"
	StatusStopHookDisabled    GauntletStatus = "stop_hook_disabled"
	StatusInvalidInput        GauntletStatus = "invalid_input"
	StatusInfrastructureError GauntletStatus = "infrastructure_error"
	StatusError               GauntletStatus = "error"
)

// AllStatuses lists every status, in the order of their declaration.
var AllStatuses = []GauntletStatus{
	StatusPassed, StatusPassedWithWarnings, StatusNoApplicableGates, StatusNoChanges,
	StatusFailed, StatusRetryLimitExceeded, StatusLockExists, StatusIntervalNotElapsed,
	StatusNoConfig, StatusStopHookActive, StatusStopHookDisabled, StatusInvalidInput,
	StatusInfrastructureError, StatusError,
}

// IsBlocking reports whether s must block an agent from stopping: only failed does.
func IsBlocking(s GauntletStatus) bool { return s == StatusFailed }

// IsSuccess reports whether s is a successful run outcome (exit code 0 for run).
func IsSuccess(s GauntletStatus) bool {
	switch s {
	case StatusPassed, StatusPassedWithWarnings, StatusNoApplicableGates, StatusNoChanges:
		return true
	}
	return false
}

// ExitCode is the process exit code of `agent-gauntlet run` for s:
// 0 for success outcomes, 1 otherwise.
func ExitCode(s GauntletStatus) int {
	if IsSuccess(s) {
		return 0
	}
	return 1
}

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
	return withDetail(text, detail)
}

// withDetail is text followed by detail when given (white space runs
// folded to one space, at most maxDetail runes).
func withDetail(text, detail string) string {
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
