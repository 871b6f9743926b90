package outcome

import "testing"

// A pass that left applicable gates out never says every gate passed;
// any other result's headline is its status's message.
func TestHeadlineOfAPassThatLeftGatesOut(t *testing.T) {
	for _, tc := range []struct {
		r      RunResult
		detail string
		want   string
	}{
		{RunResult{Status: StatusPassed}, "", "✓ Gauntlet passed — every gate passed."},
		{RunResult{Status: StatusPassed, GatesLeftOut: 2}, "", "✓ Gauntlet passed — only the gates that ran passed; 2 that apply did not run."},
		{RunResult{Status: StatusPassed, GatesLeftOut: 1}, "1 from the cache.", "✓ Gauntlet passed — only the gates that ran passed; 1 that apply did not run. 1 from the cache."},
		{RunResult{Status: StatusFailed, GatesLeftOut: 1}, "1 of 1 gates failed.", Message(StatusFailed, "1 of 1 gates failed.")},
		{RunResult{Status: StatusNoApplicableGates, GatesLeftOut: 1}, "", Message(StatusNoApplicableGates, "")},
	} {
		if got := tc.r.Headline(tc.detail); got != tc.want {
			t.Errorf("%s, %d left out: got %q, want %q", tc.r.Status, tc.r.GatesLeftOut, got, tc.want)
		}
	}
}
