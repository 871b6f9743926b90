package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetryBudgetIsEachSessionsOwn: an agent's stop is at the retry limit
// only when that session's own stops were sent back in this episode until
// its budget (max_retries+1 runs) was spent; no other session, real or
// made up by a stop hook run by hand, spends it, and a person's runs spend
// none. So a session's first stop always runs the gates, and its k-th stop
// on a failure that stays is failed for k <= max_retries, the retry limit
// after running the gates for k = max_retries+1, and the retry limit
// without running them after that.
//
// The table draws interleaved sequences of stops from 1 to 4 sessions
// (named like Claude Code's, made up by hand, or none at all), with runs
// by hand among them, for max_retries 0, 1 and 2, and checks every stop
// against each session's own count.
func TestRetryBudgetIsEachSessionsOwn(t *testing.T) {
	pool := []string{"0d46d0c0-7415-46af-ae96-000000000001", "fake1", "fake2", "", "0d46d0c0-7415-46af-ae96-000000000002"}
	const sequences, stops = 3, 9
	for maxRetries := range 3 {
		for seq := range sequences {
			r := rand.New(rand.NewPCG(uint64(maxRetries), uint64(seq)))
			sessions := pool[:1+r.IntN(4)]
			var steps []string // a session id, or "hand" for a person's run
			for range stops {
				if r.IntN(6) == 0 {
					steps = append(steps, "hand")
					continue
				}
				steps = append(steps, sessions[r.IntN(len(sessions))])
			}
			t.Run(fmt.Sprintf("max_retries=%d/%d", maxRetries, seq), func(t *testing.T) {
				root := twoEntryPoints(t)
				cfg := filepath.Join(root, ".gauntlet", "config.yml")
				data, err := os.ReadFile(cfg)
				if err != nil {
					t.Fatal(err)
				}
				write(t, cfg, strings.Replace(string(data), "max_retries: 1", fmt.Sprintf("max_retries: %d", maxRetries), 1))
				checkOwnBudgets(t, root, maxRetries, steps)
			})
		}
	}
}

// checkOwnBudgets runs steps (stops of sessions, or "hand" for a person's
// run) in root, whose gates keep failing, and checks each stop against
// its session's own count.
func checkOwnBudgets(t *testing.T, root string, maxRetries int, steps []string) {
	t.Helper()
	ctx := context.Background()
	own := map[string]int{}
	for i, step := range steps {
		if step == "hand" {
			if res := ExecuteRun(ctx, Options{Dir: root, Silent: true}); res.Status != StatusFailed {
				t.Fatalf("step %d (%v): a run by hand: %s, want failed", i+1, steps, res.Status)
			}
			continue
		}
		res := ExecuteRun(ctx, Options{Dir: root, Silent: true, Agent: true, SessionID: step})
		k := own[step] + 1
		want, ran := StatusFailed, true
		switch {
		case k == maxRetries+1:
			want = StatusRetryLimitExceeded
		case k > maxRetries+1:
			want, ran = StatusRetryLimitExceeded, false
		}
		if res.Status != want || (res.GatesRun > 0) != ran {
			t.Fatalf("step %d (%v): stop %d of session %q: %s with %d gate(s) run, want %s with gates run: %v (max_retries %d)",
				i+1, steps, k, step, res.Status, res.GatesRun, want, ran, maxRetries)
		}
		if ran {
			own[step] = k
		}
	}
}
