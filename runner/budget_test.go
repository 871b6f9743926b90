package runner

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// status counts the runs left in the episode the execution state records,
// as the run's own budget does.
func TestRunBudgetFollowsEpisode(t *testing.T) {
	names := []logdir.Name{logdir.ConsoleName(1), logdir.ConsoleName(2), logdir.ConsoleName(3), logdir.ConsoleName(4)}
	tests := []struct {
		name          string
		recordedStart int
		wantLeft      int
	}{
		{"no episode recorded counts from run 1", 0, 0},
		{"an episode from run 3", 3, 2},
		{"an episode from the next run", 5, 4},
		{"a start beyond the next run (archived since) counts from 1", 9, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := runBudget(names, 3, tc.recordedStart)
			if b.Next != 5 || b.Allowed != 4 || b.Left != tc.wantLeft {
				t.Errorf("runBudget = %+v, want next 5, allowed 4, left %d", b, tc.wantLeft)
			}
		})
	}
}
