package stophook

import (
	"context"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// pendingView is what waits to be verified in a project: the gates whose
// latest verdict failed, and the verdicts dropped without a verification
// since (agent-gauntlet clean, a branch change).
type pendingView struct {
	// Gates are the job ids whose latest verdict failed: checks, then
	// review jobs.
	Gates []string
	// Cleared is the last drop of pending verdicts with no full pass
	// since, nil when none.
	Cleared *runner.Cleared
}

// empty reports that nothing waits to be verified.
func (v pendingView) empty() bool { return len(v.Gates) == 0 && v.Cleared == nil }

// all is every gate that waits to be verified: the failing ones, then
// those whose failures were dropped unverified, each once.
func (v pendingView) all() []string {
	out := slices.Clone(v.Gates)
	if v.Cleared != nil {
		for _, j := range v.Cleared.Jobs {
			if !slices.Contains(out, j) {
				out = append(out, j)
			}
		}
	}
	return out
}

// PendingGates are the gates that wait to be verified in the project of
// cfg, as the stop hook's answers list them ("pending"): for status.
func PendingGates(ctx context.Context, cfg *config.Config, now time.Time) []string {
	return pendingFailures(ctx, cfg, now).all()
}

// pendingFailures is the one way the stop hook learns what waits to be
// verified in the project of cfg (the configuration in force): the
// gauntlet's own records of its verdicts (runner.Pending), never the log
// directory's files.
func pendingFailures(ctx context.Context, cfg *config.Config, now time.Time) pendingView {
	p := runner.Pending(ctx, cfg, now)
	return pendingView{Gates: p.Jobs(), Cleared: p.Cleared}
}
