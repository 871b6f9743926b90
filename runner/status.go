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
