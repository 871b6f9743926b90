package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// ProjectStatus is where a project's gauntlet stands between runs: what
// `agent-gauntlet status` shows and the session-start hook tells a new
// agent session. Reading it runs no git command.
type ProjectStatus struct {
	// Root is the project root; LogDir its log directory.
	Root   string `json:"project"`
	LogDir string `json:"log_dir"`
	// FailedChecks are the check jobs whose latest verdict failed or
	// erred; FailedReviews the review jobs with a slot whose latest verdict
	// failed (the gauntlet's own records, see Pending).
	FailedChecks  []string `json:"failed_checks"`
	FailedReviews []string `json:"failed_reviews"`
	// Violations counts the violations of the failed review slots by the
	// agent's mark.
	Violations ViolationCounts `json:"violations"`
	// PreExisting are the checks of the last run that failed as they do on
	// the base branch (baseline: true): not caused by the change, not
	// pending, here for information.
	PreExisting []string `json:"pre_existing_checks"`
	// Run is the next run's number and the agent's retry budget.
	Run RunBudget `json:"run"`
	// LastRun is the execution state's last run, nil when there is none.
	LastRun *LastRun `json:"last_run"`
	// StopHook says whether the next stop runs the gates.
	StopHook HookOutlook `json:"stop_hook"`
	// Lock describes the run lock, nil when there is none.
	Lock *LockStatus `json:"lock"`
	// Cleared says when and why verdicts were last dropped without a run
	// that verified them, nil when never; Record is the gauntlet's own
	// record of its verdicts ("" for a project with no place for one).
	Cleared *Cleared `json:"cleared,omitempty"`
	Record  string   `json:"verdict_record,omitempty"`
	// Skipped are the review violations the agent skipped instead of
	// fixing on Branch, the work tree's branch (oldest first), each with
	// its reason: its standing decisions, kept when the logs are archived,
	// so that a stop that passed with skipped violations stays explained.
	Skipped []decisions.Decision `json:"skipped_violations"`
	Branch  string               `json:"branch,omitempty"`
	// Warnings name files that could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// Pending reports whether failures wait to be fixed.
func (s ProjectStatus) Pending() bool { return len(s.FailedChecks)+len(s.FailedReviews) > 0 }

// ViolationCounts counts review violations by status.
type ViolationCounts struct {
	New     int `json:"new"`
	Fixed   int `json:"fixed"`
	Skipped int `json:"skipped"`
}

// RunBudget is the next run's place in the retry budget.
type RunBudget struct {
	// Next is the next run's number; Verification whether it verifies
	// pending failures.
	Next         int  `json:"next"`
	Verification bool `json:"verification"`
	// MaxRetries is the configured max_retries; Allowed the runs it allows
	// (max_retries + 1) to each agent session; Left those the session of
	// the last counted stop still has in the episode (0: its next stop is
	// refused with retry_limit_exceeded, unless a new commit starts a
	// fresh budget). Sessions are every session's budget, the last counted
	// last: each session's own stops alone spend it, and a session with
	// none counted has all of it. Runs by hand spend none.
	MaxRetries int                      `json:"max_retries"`
	Allowed    int                      `json:"allowed"`
	Left       int                      `json:"left"`
	Sessions   []verdicts.SessionBudget `json:"sessions,omitempty"`
}

// LastRun is the execution state's record of the last run.
type LastRun struct {
	CompletedAt time.Time `json:"completed_at"`
	Branch      string    `json:"branch"`
	Commit      string    `json:"commit"`
}

// HookOutlook is what the stop hook does at the next stop.
type HookOutlook struct {
	Enabled         bool `json:"enabled"`
	IntervalMinutes int  `json:"interval_minutes"`
	// IntervalApplies is true when the next stop is approved without a run
	// (interval_not_elapsed) for NextRunIn more.
	IntervalApplies bool          `json:"interval_applies"`
	NextRunIn       time.Duration `json:"-"`
	NextRunInSec    int           `json:"next_run_in_seconds"`
	// Reason says why in words.
	Reason string `json:"reason"`
}

// LockStatus describes the run lock.
type LockStatus struct {
	Path      string    `json:"path"`
	PID       int       `json:"pid,omitempty"`
	Host      string    `json:"host,omitempty"`
	StartedAt time.Time `json:"started_at,omitzero"`
	// Age is how long the lock has been held.
	Age    time.Duration `json:"-"`
	AgeSec int           `json:"age_seconds"`
	// Stale is true for a lock no live run can hold (its process gone from
	// this host, its deadline passed, or older than the longest possible
	// run): the next run takes it over.
	Stale bool `json:"stale"`
}

// Status reads where the project of cfg stands at now: what the
// gauntlet's own records leave to verify (Pending), the agent's retry
// budget, the last run, the stop hook's interval and the lock; getenv
// resolves the stop hook's settings (environment > project > global).
// Reading it runs no git command (unless git's location variables are
// set).
func Status(ctx context.Context, cfg *config.Config, getenv func(string) string, now time.Time) ProjectStatus {
	logDir := cfg.LogDirPath()
	st := ProjectStatus{Root: cfg.Root, LogDir: logDir, PreExisting: []string{}}
	v := run.ReadVerdicts(ctx, cfg, now)
	pf := pendingOf(v)
	st.FailedChecks, st.FailedReviews, st.Violations = pf.Checks, pf.reviewJobs(), pf.Violations
	st.Cleared, st.Record = pf.Cleared, pf.Record
	st.Warnings = append(st.Warnings, pf.Warnings...)
	if prev, err := state.Read(logDir); err == nil && prev != nil {
		st.LastRun = &LastRun{CompletedAt: prev.LastRunCompletedAt, Branch: prev.Branch, Commit: prev.Commit}
		st.PreExisting = append(st.PreExisting, prev.PreExisting...)
	}
	skips, branch, err := decisions.Standing(ctx, cfg.Root)
	if err != nil && !errors.Is(err, place.ErrNoRepository) {
		st.Warnings = append(st.Warnings, decisions.Warning(err))
	}
	st.Skipped, st.Branch = append([]decisions.Decision{}, skips...), branch
	next, err := logdir.NextRunNumber(logDir)
	if err != nil {
		st.Warnings = append(st.Warnings, err.Error())
	}
	st.Run = RunBudget{Next: next, Verification: !pf.Empty(), MaxRetries: cfg.MaxRetries, Allowed: cfg.MaxRetries + 1}
	st.Run.Left = max(0, st.Run.Allowed-v.Book.Last().Runs)
	st.Run.Sessions = v.Book.Episode.Budgets()
	eff := config.Resolve(cfg, getenv)
	st.Warnings = append(st.Warnings, eff.Warnings...)
	st.StopHook = hookOutlook(ctx, eff.StopHook, cfg.Root, logDir, now)
	if info := lock.Inspect(logDir, run.LockMaxAge(cfg)); info.Exists {
		age := max(now.Sub(info.TakenAt), 0)
		st.Lock = &LockStatus{Path: info.Path, PID: info.PID, Host: info.Host, StartedAt: info.TakenAt,
			Age: age, AgeSec: int(age.Seconds()), Stale: !info.Held}
	}
	return st
}

// hookOutlook says whether the stop hook runs the gates at the next stop.
func hookOutlook(ctx context.Context, settings config.StopHook, root, logDir string, now time.Time) HookOutlook {
	o := HookOutlook{Enabled: settings.Enabled, IntervalMinutes: settings.RunIntervalMinutes}
	remaining, why := IntervalRemaining(ctx, root, logDir, settings.RunIntervalMinutes, now)
	switch {
	case !settings.Enabled:
		o.Reason = "the stop hook is disabled: stops are approved without a run"
	case remaining > 0:
		o.IntervalApplies, o.NextRunIn, o.NextRunInSec = true, remaining, int(remaining.Seconds())
		o.Reason = fmt.Sprintf("stops are approved without a run for another %s (run_interval_minutes: %d)", remaining, settings.RunIntervalMinutes)
	default:
		o.Reason = "the next stop runs the gates: " + why
	}
	return o
}

// IntervalRemaining is the time left before the stop hook's interval lets
// it run the gates again (0 when a run is due) in the project at root
// whose log directory is logDir, and why a run is due: interval 0, no or
// an unreadable execution state, failures pending in the gauntlet's own
// records (they are always verified), no full pass recorded, a pass in
// the future (a skewed clock never silences the hook), or the interval
// elapsed.
//
// The interval starts at the last full pass (the last run that covered
// every applicable gate and passed, with no failure since: a partial run,
// -c or a failure never starts it), and it applies only when both the
// verdict book and the execution state say so: an execution state with
// only the TypeScript tool's fields counts from its
// last_run_completed_at, and no execution state, or one edited, can make
// the hook skip a run that the book says is due. Without a book yet the
// execution state alone decides (verdicts.IntervalStart), in a project an
// earlier tool can have left (run.StateTaken); in any other, no interval. A full pass that
// ran in another environment than this process's (run.EnvIdentity: a run
// by hand with another PATH, GOFLAGS or reviewer program, a program
// added to a PATH directory, a file a reviewer reads; or a program its
// checks name rewritten in place, run.PassedHere) starts no interval here,
// as its results are a miss of the result cache here.
func IntervalRemaining(ctx context.Context, root, logDir string, minutes int, now time.Time) (time.Duration, string) {
	if minutes <= 0 {
		return 0, "no run interval is set"
	}
	st, err := state.Read(logDir)
	if err != nil || st == nil {
		return 0, "no earlier run is recorded"
	}
	starts := []time.Time{verdicts.IntervalStart(nil, st)}
	book, err := run.StoredBook(ctx, root)
	switch {
	case err != nil:
		return 0, "the gauntlet's record of its verdicts cannot be used"
	case book == nil:
		// A project without records yet: its logs tell what is pending,
		// and its state when an earlier tool can have left it.
		if pending, err := logdir.HasPendingLogs(logDir); err != nil || pending {
			return 0, "failures are pending (they are always verified)"
		}
		if !run.StateTaken(ctx, root, logDir) {
			return 0, "no full pass is in the gauntlet's records (an execution state alone counts only in a project this version has not run or been trusted in)"
		}
	default:
		if p, _ := book.Pending(logDir, run.EnvIdentity(), nil); !p.Empty() || len(p.Skipped) > 0 {
			return 0, "failures are pending (they are always verified)"
		}
		if !book.LastFullPassAt.IsZero() && (!book.PassedIn(run.EnvIdentity()) || !run.PassedHere(book.FullPass)) {
			return 0, msgOtherEnv
		}
		starts = append(starts, book.LastFullPassAt)
	}
	interval := time.Duration(minutes) * time.Minute
	left := interval
	for _, start := range starts {
		if start.IsZero() {
			return 0, "no full run has passed since the last failure"
		}
		elapsed := now.Sub(start)
		if elapsed < 0 || elapsed >= interval {
			return 0, "the run interval has elapsed"
		}
		left = min(left, (interval - elapsed + time.Second - 1).Truncate(time.Second))
	}
	return left, ""
}

// msgOtherEnv says why the interval does not apply after a full pass in
// another environment.
const msgOtherEnv = "the last full pass ran in another environment (other variables, PATH or review CLI programs): its results are not taken here"

// SinceFullPass compares the project of cfg, whose base branch is base,
// with what its last full pass verified (run.SinceFullPass; nothing is
// known without a configuration): the stop hook's interval says what it
// leaves unverified, or that nothing is.
func SinceFullPass(ctx context.Context, cfg *config.Config, base string) (run.SincePass, error) {
	if cfg == nil {
		return run.SincePass{}, nil
	}
	return run.SinceFullPass(ctx, cfg, base)
}
