package run

import (
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// A run's place in the work tree's lifecycle: full or partial (see
// project.fullRun), a look at a past commit outside it, and its retry
// budget, counted per episode.

// place decides the run number, the run's place in the retry budget of
// its episode and whether this is a verification run (failure logs
// pending); at the retry limit it stops the run. A look at a past commit
// numbers its files in its own space (CommitDir), is never a verification
// run and has no budget.
func (b *begun) place(s *services, p *project) error {
	if p.pastCommit() {
		b.runDir = filepath.Join(p.logDir, logdir.CommitDir)
		n, err := logdir.NextRunNumber(b.runDir)
		if err != nil {
			return err
		}
		b.runNumber, b.episodeStart, b.attempt = n, n, 1
		return nil
	}
	b.runDir = p.logDir
	pending, err := logdir.HasPendingLogs(p.logDir)
	if err == nil {
		b.runNumber, err = logdir.NextRunNumber(p.logDir)
	}
	if err != nil {
		return err
	}
	b.episodeStart = EpisodeStart(b.prev.EpisodeStartRun, b.runNumber)
	if attempt := b.runNumber - b.episodeStart + 1; retryLimitReached(attempt, p.cfg.MaxRetries) {
		why := b.freshBudget(p)
		if why == "" {
			msg := retryLimitMessage(attempt, p.cfg.MaxRetries+1, p.cfg.MaxRetries)
			latest, _ := logdir.LatestConsoleLog(p.logDir)
			return &stop{status: outcome.StatusRetryLimitExceeded, line: msg, message: msg, consoleLog: latest}
		}
		s.cons.Printf(lineFreshBudget, why, p.cfg.MaxRetries+1)
		b.episodeStart = b.runNumber
	}
	b.attempt = b.runNumber - b.episodeStart + 1
	if pending {
		s.cons.Printf(lineVerification)
	}
	b.verification = pending
	return nil
}

// EpisodeStart is the run the budget counts from: the recorded one, or 1
// when none is recorded or the recorded one lies beyond the next run (the
// logs were archived since).
func EpisodeStart(recorded, next int) int {
	if recorded < 1 || recorded > next {
		return 1
	}
	return recorded
}

// freshBudget says why an episode whose retry limit was reached ends, ""
// when it does not: the stop hook runs for another agent session than the
// run that reached it, or HEAD moved since (a new commit). The failures
// still pending are verified in the new episode, so gates that fail now
// still block.
func (b *begun) freshBudget(p *project) string {
	if s := p.opts.SessionID; s != "" && b.prev.SessionID != "" && s != b.prev.SessionID {
		return reasonNewSession
	}
	refs, err := b.refs.get()
	if err == nil && refs.Head != b.prev.Commit {
		return reasonNewCommit
	}
	return ""
}

// lastFullPass is the start of the stop hook's interval after a run that
// ended with status at now: now after a full run that passed (or passed
// with warnings); none after a run that failed (a failure since the last
// full pass ends the interval); else unchanged.
func lastFullPass(p *project, b *begun, status outcome.GauntletStatus, now time.Time) time.Time {
	switch {
	case p.fullRun() && (status == outcome.StatusPassed || status == outcome.StatusPassedWithWarnings):
		return now
	case status == outcome.StatusFailed || status == outcome.StatusRetryLimitExceeded:
		return time.Time{}
	}
	return b.prev.LastFullPassAt
}

// nextEpisode is the run the retry budget counts from after a run that
// ended with status: the next episode's first run after a full run that
// passed with warnings (it ends the episode like a pass, its logs kept);
// none (run 1) once the logs are archived; else this episode's start.
func nextEpisode(p *project, b *begun, status outcome.GauntletStatus, archived bool) int {
	switch {
	case archived:
		return 0
	case p.fullRun() && status == outcome.StatusPassedWithWarnings:
		return b.runNumber + 1
	}
	return b.episodeStart
}
