package runner

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"strings"
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

func TestDecideStatus(t *testing.T) {
	tests := []struct {
		name string
		o    outcome
		want GauntletStatus
	}{
		{"all passed", outcome{run: 1, maxRetries: 3}, StatusPassed},
		{"skips pass with warnings", outcome{skipped: 2, run: 1, maxRetries: 3}, StatusPassedWithWarnings},
		{"a failure fails", outcome{gatesFailed: 1, skipped: 2, run: 2, maxRetries: 3}, StatusFailed},
		{"a failure in the last allowed run exceeds the limit", outcome{gatesFailed: 1, run: 4, maxRetries: 3}, StatusRetryLimitExceeded},
		{"a pass in the last allowed run passes", outcome{run: 4, maxRetries: 3}, StatusPassed},
		{"max_retries 0: the first failure exceeds", outcome{gatesFailed: 1, run: 1, maxRetries: 0}, StatusRetryLimitExceeded},
		{"only reviewers that could not run", outcome{gatesFailed: 1, onlyInfrastructure: true, run: 1, maxRetries: 3}, StatusInfrastructureError},
		{"the retry limit before infrastructure", outcome{gatesFailed: 1, onlyInfrastructure: true, run: 4, maxRetries: 3}, StatusRetryLimitExceeded},
		{"interrupted, whatever ran", outcome{interrupted: true, gatesFailed: 1, run: 4, maxRetries: 3}, StatusError},
		{"a look at a past commit has no budget", outcome{gatesFailed: 1, run: 1, maxRetries: 0, noBudget: true}, StatusFailed},
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

// Every status has one message of its own; the termination statuses have a
// console status line.
func TestStatusMessages(t *testing.T) {
	seen := map[string]GauntletStatus{}
	for _, s := range AllStatuses {
		msg := statuses[s].message
		if msg == "" {
			t.Errorf("%s has no message", s)
		}
		if other, dup := seen[msg]; dup {
			t.Errorf("%s and %s share a message", s, other)
		}
		seen[msg] = s
		if got := Message(s, ""); got != msg {
			t.Errorf("Message(%s) = %q", s, got)
		}
	}
	if len(statuses) != len(AllStatuses) {
		t.Errorf("facts for %d statuses, want %d", len(statuses), len(AllStatuses))
	}
	if IsRoutine(StatusFailed) || IsRoutine(StatusRetryLimitExceeded) || !IsRoutine(StatusNoConfig) {
		t.Error("routine flags wrong")
	}
	var lines []string
	for _, s := range TerminationStatuses {
		lines = append(lines, StatusLine(s))
	}
	if got := strings.Join(lines, "|"); got != "Status: Passed|Status: Passed with warnings|Status: Retry limit exceeded" {
		t.Errorf("termination lines = %q", got)
	}
	got := Message(StatusError, "git add:\n  exit 1\n"+strings.Repeat("x", 2*maxDetail))
	if strings.ContainsAny(got, "\n\r") || !strings.Contains(got, "git add: exit 1 xxx") || !strings.HasSuffix(got, "…") {
		t.Errorf("Message = %q", got)
	}
	if n := len([]rune(got)) - len([]rune(statuses[StatusError].message)); n > maxDetail+1 {
		t.Errorf("detail of %d runes", n)
	}
}

// episodeStart clamps the recorded start of the budget: none, or one beyond
// the next run (the logs were archived since), counts from run 1.
func TestEpisodeStart(t *testing.T) {
	for _, tt := range []struct{ recorded, next, want int }{
		{0, 1, 1}, {0, 7, 1}, {3, 7, 3}, {7, 7, 7}, {5, 1, 1}, {-2, 4, 1},
	} {
		if got := episodeStart(tt.recorded, tt.next); got != tt.want {
			t.Errorf("episodeStart(%d, %d) = %d, want %d", tt.recorded, tt.next, got, tt.want)
		}
	}
}
