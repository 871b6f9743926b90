package runner

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

func TestStatusDecisions(t *testing.T) {
	for _, s := range AllStatuses {
		wantBlock := s == StatusFailed
		if got := IsBlocking(s); got != wantBlock {
			t.Errorf("IsBlocking(%s) = %v, want %v", s, got, wantBlock)
		}
		wantExit := 1
		switch s {
		case StatusPassed, StatusPassedWithWarnings, StatusNoApplicableGates, StatusNoChanges:
			wantExit = 0
		}
		if got := ExitCode(s); got != wantExit {
			t.Errorf("ExitCode(%s) = %d, want %d", s, got, wantExit)
		}
	}
	if len(AllStatuses) != 14 {
		t.Fatalf("AllStatuses has %d values, DESIGN.md §2 lists 14", len(AllStatuses))
	}
}

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
