package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
)

// finish ends a run whose gates ran: the status (decideStatus), the
// execution state, the summary, and archiving after a pass. An
// interrupted run writes no state and no summary; a look at a past commit
// writes no state and archives nothing.
func (e *execution) finish(ctx context.Context, ch changes, jobs []gate.Job, results []gate.Result, previous *gate.Pending, consolePath string) RunResult {
	sum := console.Summarize(results, previous)
	res := RunResult{ConsoleLogPath: consolePath, GatesRun: len(results) - sum.NotRun,
		GatesFailed: sum.GatesFailed, GatesNotRun: sum.NotRun, GatesCached: cachedCount(results),
		Fixed: sum.Fixed, Skipped: sum.Skipped, PreExisting: sum.PreExistingGates, Gates: outcome.Gates(jobs, results, e.runNumber)}
	res.Status = decideStatus(tally{
		interrupted: ctx.Err() != nil, gatesFailed: sum.GatesFailed, skipped: sum.Skipped,
		onlyInfrastructure: onlyInfrastructure(results), run: e.attempt, maxRetries: e.cfg.MaxRetries,
		noBudget: e.pastCommit(),
	})
	switch res.Status {
	case StatusError:
		e.cons.Printf(lineInterrupted)
		res.ErrorMessage = fmt.Sprintf("run interrupted: %v", context.Cause(ctx))
		return res
	case StatusInfrastructureError:
		// Nothing the agent can fix: do not block it (seeds: infrastructure
		// problems approve). The errors are in the logs and the message.
		res.ErrorMessage = infrastructureDetail(results)
	}
	archiving := endsEpisode(res.Status) && e.mayArchive(jobs)
	for _, g := range res.Gates {
		if g.Status == GatePreExisting {
			e.preExisting = append(e.preExisting, g.JobID)
		}
	}
	e.reviewDefs = reviewDefinitions(jobs)
	if !e.pastCommit() {
		e.writeState(ctx, ch.from, res.Status, archiving)
	}
	e.cons.PrintSummary(sum, e.attempt, outcome.StatusText(res.Status))
	if err := e.cons.Close(); err != nil {
		e.cons.Printf(lineWarning, err)
	}
	if archiving && e.archiveAfterPass() {
		res.ConsoleLogPath = e.archived(res.ConsoleLogPath)
		for i := range res.Gates {
			g := &res.Gates[i]
			g.LogPath = e.archived(g.LogPath)
			for j := range g.Slots {
				g.Slots[j].LogPath, g.Slots[j].JSONPath = e.archived(g.Slots[j].LogPath), e.archived(g.Slots[j].JSONPath)
			}
		}
	}
	e.record(ctx, e.cache, results, res.ConsoleLogPath)
	return res
}

// cachedCount counts the results taken from the result cache.
func cachedCount(results []gate.Result) int {
	n := 0
	for _, r := range results {
		if r.Cached != nil {
			n++
		}
	}
	return n
}

// endsEpisode reports whether a run with status s ends the episode and
// archives the logs: passed, and passed_with_warnings (the skips it reports
// are decisions kept apart from the logs, see decisions.go).
func endsEpisode(s GauntletStatus) bool { return s == StatusPassed || s == StatusPassedWithWarnings }

// onlyInfrastructure reports whether every gate that did not pass failed for
// reasons the agent cannot fix (gate.Result.Infrastructure).
func onlyInfrastructure(results []gate.Result) bool {
	found := false
	for _, r := range results {
		if !r.Status.Failed() {
			continue
		}
		if !r.Infrastructure {
			return false
		}
		found = true
	}
	return found
}

// infrastructureDetail names each gate that could not run and why.
func infrastructureDetail(results []gate.Result) string {
	var parts []string
	for _, r := range results {
		if r.Infrastructure {
			parts = append(parts, r.JobID+": "+r.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// reviewDefinitions fingerprints the definition of every review job of
// jobs (see state.State.ReviewDefinitions), nil when there is none.
func reviewDefinitions(jobs []gate.Job) map[string]string {
	var defs map[string]string
	for _, j := range jobs {
		if j.Kind != gate.KindReview {
			continue
		}
		if defs == nil {
			defs = map[string]string{}
		}
		defs[j.ID] = cache.DefinitionFingerprint(j)
	}
	return defs
}
