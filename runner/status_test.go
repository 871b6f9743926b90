package runner

import "testing"

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
