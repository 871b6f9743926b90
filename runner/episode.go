package runner

import (
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// A run's place in the work tree's lifecycle: full or partial, a look at a
// past commit outside it, and its retry budget, counted per episode.

// pastCommit reports a look at a past commit (-c): it lives outside the
// work tree's lifecycle.
func (e *execution) pastCommit() bool { return e.opts.Commit != "" }

// fullRun reports whether the run covers every gate that applies to the
// work tree: every kind, no -g, --working-directory, -c, -u or -b. Only a
// full run that passes starts the stop hook's interval, and only a full
// run may archive other gates' pending failures.
func (e *execution) fullRun() bool {
	o := e.opts
	return o.Kinds == KindsAll && o.Gate == "" && o.WorkingDir == "" && o.Commit == "" && !o.Uncommitted && o.BaseBranch == ""
}

// startRun decides the run number, the run's place in the retry budget of
// its episode and whether this is a verification run (failure logs
// pending); a non-nil result refuses the run at the retry limit. A look at
// a past commit numbers its files in its own space (CommitDir), is never a
// verification run and has no budget.
func (e *execution) startRun() (verification bool, refused *RunResult) {
	if e.pastCommit() {
		return false, e.startPastCommit()
	}
	e.runDir = e.logDir
	pending, err := logdir.HasPendingLogs(e.logDir)
	if err == nil {
		e.runNumber, err = logdir.NextRunNumber(e.logDir)
	}
	if err != nil {
		r := e.fail(StatusError, err)
		return false, &r
	}
	e.episodeStart = episodeStart(e.prev.EpisodeStartRun, e.runNumber)
	if attempt := e.runNumber - e.episodeStart + 1; retryLimitReached(attempt, e.cfg.MaxRetries) {
		why := e.freshBudget()
		if why == "" {
			msg := retryLimitMessage(attempt, e.cfg.MaxRetries+1, e.cfg.MaxRetries)
			e.cons.Printf("%s", msg)
			latest, _ := logdir.LatestConsoleLog(e.logDir)
			return false, &RunResult{Status: StatusRetryLimitExceeded, ErrorMessage: msg, ConsoleLogPath: latest}
		}
		e.cons.Printf(lineFreshBudget, why, e.cfg.MaxRetries+1)
		e.episodeStart = e.runNumber
	}
	e.attempt = e.runNumber - e.episodeStart + 1
	if pending {
		e.cons.Printf(lineVerification)
	}
	return pending, nil
}

// startPastCommit numbers a look at a past commit in CommitDir; a non-nil
// result ends the run.
func (e *execution) startPastCommit() *RunResult {
	e.runDir = filepath.Join(e.logDir, logdir.CommitDir)
	n, err := logdir.NextRunNumber(e.runDir)
	if err != nil {
		r := e.fail(StatusError, err)
		return &r
	}
	e.runNumber, e.episodeStart, e.attempt = n, n, 1
	return nil
}

// episodeStart is the run the budget counts from: the recorded one, or 1
// when none is recorded or the recorded one lies beyond the next run (the
// logs were archived since).
func episodeStart(recorded, next int) int {
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
func (e *execution) freshBudget() string {
	if s := e.opts.SessionID; s != "" && e.prev.SessionID != "" && s != e.prev.SessionID {
		return reasonNewSession
	}
	refs, err := e.refs.get()
	if err == nil && refs.Head != e.prev.Commit {
		return reasonNewCommit
	}
	return ""
}

// lastFullPass is the start of the stop hook's interval after a run that
// ended with status at now: now after a full run that passed (or passed
// with warnings); none after a run that failed (a failure since the last
// full pass ends the interval); else unchanged.
func (e *execution) lastFullPass(status GauntletStatus, now time.Time) time.Time {
	switch {
	case e.fullRun() && (status == StatusPassed || status == StatusPassedWithWarnings):
		return now
	case status == StatusFailed || status == StatusRetryLimitExceeded:
		return time.Time{}
	}
	return e.prev.LastFullPassAt
}

// nextEpisode is the run the retry budget counts from after a run that
// ended with status: the next episode's first run after a full run that
// passed with warnings (it ends the episode like a pass, its logs kept);
// none (run 1) once the logs are archived; else this episode's start.
func (e *execution) nextEpisode(status GauntletStatus, archived bool) int {
	switch {
	case archived:
		return 0
	case e.fullRun() && status == StatusPassedWithWarnings:
		return e.runNumber + 1
	}
	return e.episodeStart
}
