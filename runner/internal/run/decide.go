package run

import "github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"

// tally is what the status of a run that ran its gates depends on.
type tally struct {
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
func decideStatus(o tally) outcome.GauntletStatus {
	switch {
	case o.interrupted:
		return outcome.StatusError
	case o.gatesFailed > 0 && !o.noBudget && o.run >= o.maxRetries+1:
		return outcome.StatusRetryLimitExceeded
	case o.gatesFailed > 0 && o.onlyInfrastructure:
		return outcome.StatusInfrastructureError
	case o.gatesFailed > 0:
		return outcome.StatusFailed
	case o.skipped > 0:
		return outcome.StatusPassedWithWarnings
	}
	return outcome.StatusPassed
}

// retryLimitReached reports whether run (its place in the episode's
// budget) may not start: max_retries verification runs after the first
// have been used.
func retryLimitReached(run, maxRetries int) bool { return run > maxRetries+1 }
