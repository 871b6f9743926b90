package run

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
)

func TestOnlyInfrastructure(t *testing.T) {
	pass := gate.Result{Status: gate.StatusPass}
	infra := gate.Result{Status: gate.StatusError, Infrastructure: true}
	fail := gate.Result{Status: gate.StatusFail}
	errored := gate.Result{Status: gate.StatusError}
	tests := []struct {
		name    string
		results []gate.Result
		want    bool
	}{
		{"all passed", []gate.Result{pass, pass}, false},
		{"one reviewer could not run", []gate.Result{pass, infra}, true},
		{"several could not run", []gate.Result{infra, infra}, true},
		{"a real failure beside it blocks", []gate.Result{infra, fail}, false},
		{"an error the agent can fix blocks", []gate.Result{infra, errored}, false},
		{"nothing ran", nil, false},
	}
	for _, tt := range tests {
		if got := onlyInfrastructure(tt.results); got != tt.want {
			t.Errorf("%s: onlyInfrastructure = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDecideStatus(t *testing.T) {
	tests := []struct {
		name string
		o    tally
		want outcome.GauntletStatus
	}{
		{"all passed", tally{run: 1, maxRetries: 3}, outcome.StatusPassed},
		{"skips pass with warnings", tally{skipped: 2, run: 1, maxRetries: 3}, outcome.StatusPassedWithWarnings},
		{"a failure fails", tally{gatesFailed: 1, skipped: 2, run: 2, maxRetries: 3}, outcome.StatusFailed},
		{"a failure in the last allowed run exceeds the limit", tally{gatesFailed: 1, run: 4, maxRetries: 3}, outcome.StatusRetryLimitExceeded},
		{"a pass in the last allowed run passes", tally{run: 4, maxRetries: 3}, outcome.StatusPassed},
		{"max_retries 0: the first failure exceeds", tally{gatesFailed: 1, run: 1, maxRetries: 0}, outcome.StatusRetryLimitExceeded},
		{"only reviewers that could not run", tally{gatesFailed: 1, onlyInfrastructure: true, run: 1, maxRetries: 3}, outcome.StatusInfrastructureError},
		{"the retry limit before infrastructure", tally{gatesFailed: 1, onlyInfrastructure: true, run: 4, maxRetries: 3}, outcome.StatusRetryLimitExceeded},
		{"interrupted, whatever ran", tally{interrupted: true, gatesFailed: 1, run: 4, maxRetries: 3}, outcome.StatusError},
		{"a look at a past commit has no budget", tally{gatesFailed: 1, run: 1, maxRetries: 0, noBudget: true}, outcome.StatusFailed},
	}
	for _, tt := range tests {
		if got := decideStatus(tt.o); got != tt.want {
			t.Errorf("%s: decideStatus(%+v) = %s, want %s", tt.name, tt.o, got, tt.want)
		}
	}
	for _, tt := range []struct {
		run, maxRetries int
		want            bool
	}{{1, 0, false}, {2, 0, true}, {4, 3, false}, {5, 3, true}} {
		if got := retryLimitReached(tt.run, tt.maxRetries); got != tt.want {
			t.Errorf("retryLimitReached(%d, %d) = %v", tt.run, tt.maxRetries, got)
		}
	}
}
