package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// finish ends a run whose gates ran: the status (decideStatus), the
// execution state, the summary, archiving after a pass, and the passes
// recorded in the result cache. An interrupted run writes no state and no
// summary; a look at a past commit writes no state and archives nothing.
func finish(ctx context.Context, s *services, p *project, b *begun, ch *changes, pl *planned, prep *prepared, g ran) outcome.RunResult {
	results := g.results
	sum := console.Summarize(results, prep.previous)
	res := outcome.RunResult{ConsoleLogPath: prep.consolePath, GatesRun: len(results) - sum.NotRun,
		GatesFailed: sum.GatesFailed, GatesNotRun: sum.NotRun, GatesCached: cachedCount(results),
		GatesLeftOut: pl.leftOut, Fixed: sum.Fixed, Skipped: sum.Skipped, PreExisting: sum.PreExistingGates, Gates: outcome.Gates(pl.jobs, results, b.runNumber)}
	below := func(at func(string) string) string {
		return belowThresholdDetail(results, p.cfg.RerunNewIssueThreshold, p.root, at)
	}
	res.Unverified = joinNotes(notShownDetail(results, unreadable(p, pl.jobs)), hiddenDetail(results), below(nil))
	if res.Unverified != "" {
		s.cons.Printf(lineWarning, "not verified: "+res.Unverified)
	}
	res.Status = decideStatus(tally{
		interrupted: ctx.Err() != nil, gatesFailed: sum.GatesFailed, skipped: sum.Skipped,
		onlyInfrastructure: onlyInfrastructure(results), run: b.attempt, maxRetries: p.cfg.MaxRetries,
		noBudget: p.pastCommit() || !p.opts.Agent,
	})
	switch res.Status {
	case outcome.StatusError:
		if b.rec != nil {
			b.rec.flush(s) // the cached verdicts held for the end's write
		}
		s.cons.Printf(lineInterrupted)
		res.ErrorMessage = fmt.Sprintf("run interrupted: %v", context.Cause(ctx))
		return res
	case outcome.StatusInfrastructureError:
		// Nothing the agent can fix: do not block it. The errors are in the
		// logs and the message.
		res.ErrorMessage = infrastructureDetail(results)
	}
	e := ending{status: res.Status, archived: endsEpisode(res.Status) && mayArchive(p, b, pl.leftOut > 0), from: ch.from, partial: pl.leftOut > 0,
		reviewed: prep.reviewed, reviewDefs: reviewDefinitions(pl.jobs),
		unverified: joinNotes(pl.offDisk, res.Unverified), unanchored: ch.unanchored, outside: prep.cache.Named()}
	for _, g := range res.Gates {
		if g.Status == outcome.GatePreExisting {
			e.preExisting = append(e.preExisting, g.JobID)
		}
	}
	iteration := b.iteration()
	if !p.pastCommit() {
		ep := takeEnd(ctx, s, p, b, e)
		ep.masked, ep.staged, ep.index = headMask(ctx, p, b, ep)
		for _, note := range maskNotes(ep) {
			if endsEpisode(res.Status) {
				s.cons.Printf(lineWarning, "not verified: "+note)
				e.unverified, res.Unverified = joinNotes(e.unverified, note), joinNotes(res.Unverified, note)
			}
		}
		recordEnd(ctx, s, p, b, ch, e, ep)
		writeState(s, p, b, e, ep, b.rec.Book)
	}
	s.cons.PrintSummary(sum, iteration, outcome.StatusText(res.Status))
	if err := s.cons.Close(); err != nil {
		s.cons.Printf(lineWarning, err)
	}
	if e.archived && archiveAfterPass(s, p) {
		res = movedToPrevious(res, p.logDir)
		if was := below(nil); was != "" {
			res.Unverified = strings.Replace(res.Unverified, was, below(func(path string) string { return archived(p.logDir, path) }), 1)
		}
	}
	prep.cache.Record(ctx, results, b.runNumber, res.ConsoleLogPath, prep.base.Question, p.snap.treeMoved)
	return res
}

// movedToPrevious is res with its log paths where archiving logDir moved
// them.
func movedToPrevious(res outcome.RunResult, logDir string) outcome.RunResult {
	res.ConsoleLogPath = archived(logDir, res.ConsoleLogPath)
	for i := range res.Gates {
		g := &res.Gates[i]
		g.LogPath = archived(logDir, g.LogPath)
		for j := range g.Slots {
			sl := &g.Slots[j]
			sl.LogPath, sl.JSONPath = archived(logDir, sl.LogPath), archived(logDir, sl.JSONPath)
			for k := range sl.Violations {
				sl.Violations[k].Path = archived(logDir, sl.Violations[k].Path)
			}
		}
	}
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
// are decisions kept apart from the logs, see runner/internal/decisions).
func endsEpisode(s outcome.GauntletStatus) bool {
	return s == outcome.StatusPassed || s == outcome.StatusPassedWithWarnings
}

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

// maxNotShownNamed bounds the paths notShownDetail names per review; the
// rest are counted.
const maxNotShownNamed = 5

// unreadable are the files the snapshot of a run with reviews had to
// leave out because git cannot read them: no reviewer saw them.
func unreadable(p *project, jobs []gate.Job) []string {
	if !hasReview(jobs) {
		return nil
	}
	ts := p.snap.listing()
	if ts == nil {
		return nil
	}
	var files []string
	for _, l := range ts.LeftOut {
		if !strings.HasSuffix(l, "/") {
			files = append(files, l)
		}
	}
	return files
}

// notShownDetail names, for each review, the changed paths its reviewers
// were not shown as text, and why, and the files no review could read
// ("" for none).
func notShownDetail(results []gate.Result, unreadable []string) string {
	var parts []string
	if n := len(unreadable); n > 0 {
		text := strings.Join(unreadable[:min(n, maxNotShownNamed)], ", ")
		if n > maxNotShownNamed {
			text += fmt.Sprintf(" and %d more", n-maxNotShownNamed)
		}
		parts = append(parts, "no review read "+text+" (git cannot read it, refuses its name, or never lists it)")
	}
	for _, r := range results {
		if len(r.NotShown) == 0 {
			continue
		}
		var names []string
		for _, n := range r.NotShown[:min(len(r.NotShown), maxNotShownNamed)] {
			names = append(names, n.String())
		}
		text := strings.Join(names, ", ")
		if more := len(r.NotShown) - len(names); more > 0 {
			text += fmt.Sprintf(" and %d more", more)
		}
		parts = append(parts, fmt.Sprintf("%s did not review %s", r.JobID, text))
	}
	return strings.Join(parts, "; ")
}

// hiddenDetail names, for each check whose failure is pre-existing while
// its command may have stopped at that failure on both sides
// (gate.Baseline.Hidden), what ran on neither side; "" for none.
func hiddenDetail(results []gate.Result) string {
	var parts []string
	for _, r := range results {
		if r.Status == gate.StatusPreExisting && r.Baseline != nil && r.Baseline.Hidden != "" {
			parts = append(parts, fmt.Sprintf("%s (pre-existing): %s", r.JobID, r.Baseline.Hidden))
		}
	}
	return strings.Join(parts, "; ")
}

// maxBelowNamed bounds the findings belowThresholdDetail names per
// review; the rest are counted.
const maxBelowNamed = 5

// belowThresholdDetail names, for each review whose verification run left
// new findings out under the rerun threshold (gate.Result.BelowThreshold),
// how many, the first few by file and line, and the logs that list them
// (their paths mapped by at, nil for as they are, and shown from root when
// below it); "" for none. A finding the threshold filtered was reported and
// is not verified: the answer says so.
func belowThresholdDetail(results []gate.Result, threshold config.Priority, root string, at func(string) string) string {
	if threshold == "" {
		threshold = config.DefaultRerunNewIssueThreshold
	}
	var parts []string
	for _, r := range results {
		n := len(r.BelowThreshold)
		if n == 0 {
			continue
		}
		var where []string
		for _, v := range r.BelowThreshold[:min(n, maxBelowNamed)] {
			where = append(where, console.Text(v.File)+":"+console.Text(parse.LineText(v.Line)))
		}
		text := strings.Join(where, ", ")
		if n > maxBelowNamed {
			text += fmt.Sprintf(" and %d more", n-maxBelowNamed)
		}
		var logs []string
		for _, sl := range r.Slots {
			if len(sl.BelowThreshold) == 0 || sl.LogPath == "" {
				continue
			}
			path := sl.LogPath
			if at != nil {
				path = at(path)
			}
			if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
				path = rel
			}
			logs = append(logs, console.Text(path))
		}
		part := fmt.Sprintf("%d new finding(s) of %s rated below rerun_new_issue_threshold (%s), left out of a verification run's verdict (%s)",
			n, console.Text(r.JobID), threshold, text)
		if len(logs) > 0 {
			part += ", listed in " + strings.Join(logs, ", ")
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
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
		if !j.ReadsDiff() {
			continue
		}
		if defs == nil {
			defs = map[string]string{}
		}
		defs[j.ID] = cache.DefinitionFingerprint(j)
	}
	return defs
}
