package outcome

import (
	"strings"
	"testing"
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
		t.Fatalf("AllStatuses has %d values, there are 14", len(AllStatuses))
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
