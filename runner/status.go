package runner

// GauntletStatus is the one status type of every gauntlet outcome. ExecuteRun
// returns it, the CLI derives its exit code from it, the stop hook writes it
// unchanged into its JSON answer and the debug log records it.
type GauntletStatus string

// Every GauntletStatus value (DESIGN.md §2).
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

// AllStatuses lists every status, in the order of DESIGN.md §2.
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

// outcome is what the status of a run that ran its gates depends on.
type outcome struct {
	// interrupted is true when the run's context ended before its gates.
	interrupted bool
	// gatesFailed counts the gates that failed or erred; skipped the review
	// violations the agent skipped.
	gatesFailed, skipped int
	// onlyInfrastructure is true when every gate that did not pass could not
	// judge the change for reasons the agent cannot fix.
	onlyInfrastructure bool
	// run is the run's place in the retry budget of its episode (1 for its
	// first run); maxRetries the configured limit.
	run, maxRetries int
	// noBudget is true for a run outside the retry budget (a look at a past
	// commit): it never exceeds the limit.
	noBudget bool
}

// decideStatus is the status of a run that ran its gates: interrupted is an
// error; a failure in the last run allowed exceeds the retry limit; a
// failure that is only infrastructure (no review CLI could run) does not
// block; any other failure fails; skipped violations pass with warnings.
func decideStatus(o outcome) GauntletStatus {
	switch {
	case o.interrupted:
		return StatusError
	case o.gatesFailed > 0 && !o.noBudget && o.run >= o.maxRetries+1:
		return StatusRetryLimitExceeded
	case o.gatesFailed > 0 && o.onlyInfrastructure:
		return StatusInfrastructureError
	case o.gatesFailed > 0:
		return StatusFailed
	case o.skipped > 0:
		return StatusPassedWithWarnings
	}
	return StatusPassed
}

// retryLimitReached reports whether run (its place in the episode's
// budget) may not start: max_retries verification runs after the first
// have been used.
func retryLimitReached(run, maxRetries int) bool { return run > maxRetries+1 }
