package runner

import (
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"
	"sort"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// ProjectStatus is where a project's gauntlet stands between runs: what
// `agent-gauntlet status` shows and the session-start hook tells a new
// agent session. Reading it runs no git command.
type ProjectStatus struct {
	// Root is the project root; LogDir its log directory.
	Root   string `json:"project"`
	LogDir string `json:"log_dir"`
	// FailedChecks are the check jobs whose latest log failed;
	// FailedReviews the review jobs with a slot whose newest verdict failed.
	FailedChecks  []string `json:"failed_checks"`
	FailedReviews []string `json:"failed_reviews"`
	// Violations counts the violations of the failed reviews by status.
	Violations ViolationCounts `json:"violations"`
	// PreExisting are the checks of the last run that failed as they do on
	// the base branch (baseline: true): not caused by the change, not
	// pending, here for information.
	PreExisting []string `json:"pre_existing_checks"`
	// Run is the next run's number and retry budget.
	Run RunBudget `json:"run"`
	// LastRun is the execution state's last run, nil when there is none.
	LastRun *LastRun `json:"last_run"`
	// StopHook says whether the next stop runs the gates.
	StopHook HookOutlook `json:"stop_hook"`
	// Lock describes the run lock, nil when there is none.
	Lock *LockStatus `json:"lock"`
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
	// (max_retries + 1); Left those still allowed (0: the next run is
	// refused with retry_limit_exceeded).
	MaxRetries int `json:"max_retries"`
	Allowed    int `json:"allowed"`
	Left       int `json:"left"`
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

// Status reads where the project of cfg stands at now; getenv resolves the
// stop hook's settings (environment > project > global).
func Status(cfg *config.Config, getenv func(string) string, now time.Time) ProjectStatus {
	logDir := cfg.LogDirPath()
	st := ProjectStatus{Root: cfg.Root, LogDir: logDir, FailedChecks: []string{}, FailedReviews: []string{}, PreExisting: []string{}}
	names, err := logdir.Scan(logDir)
	if err != nil {
		st.Warnings = append(st.Warnings, err.Error())
	}
	jn := entry.JobNames(cfg)
	for job := range check.Failing(logDir, names, jn, func(string) bool { return true }) {
		st.FailedChecks = append(st.FailedChecks, job)
	}
	sort.Strings(st.FailedChecks)
	records, warnings := review.Latest(logDir, names, jn)
	st.Warnings = append(st.Warnings, warnings...)
	failed := map[string]bool{}
	for _, r := range records {
		if r.Status != gate.StatusFail {
			continue
		}
		if !failed[r.Job] {
			failed[r.Job] = true
			st.FailedReviews = append(st.FailedReviews, r.Job)
		}
		for _, v := range r.Violations {
			switch review.StatusOf(v) {
			case gate.ViolationFixed:
				st.Violations.Fixed++
			case gate.ViolationSkipped:
				st.Violations.Skipped++
			default:
				st.Violations.New++
			}
		}
	}
	episode := 0
	if prev, err := state.Read(logDir); err != nil {
		st.Warnings = append(st.Warnings, err.Error())
	} else if prev != nil {
		st.LastRun = &LastRun{CompletedAt: prev.LastRunCompletedAt, Branch: prev.Branch, Commit: prev.Commit}
		episode = prev.EpisodeStartRun
		st.PreExisting = append(st.PreExisting, prev.PreExisting...)
	}
	st.Run = runBudget(names, cfg.MaxRetries, episode)
	eff := config.Resolve(cfg, getenv)
	st.Warnings = append(st.Warnings, eff.Warnings...)
	st.StopHook = hookOutlook(eff.StopHook, logDir, now)
	if info := lock.Inspect(logDir, run.LockMaxAge(cfg)); info.Exists {
		age := max(now.Sub(info.TakenAt), 0)
		st.Lock = &LockStatus{Path: info.Path, PID: info.PID, Host: info.Host, StartedAt: info.TakenAt,
			Age: age, AgeSec: int(age.Seconds()), Stale: !info.Held}
	}
	return st
}

// runBudget places the next run in the retry budget of maxRetries of its
// episode (recordedStart, the execution state's episode_start_run; see
// run.EpisodeStart), from the numbered files of the log directory. A new agent
// session or a new commit may still start a fresh budget at the limit.
func runBudget(names []logdir.Name, maxRetries, recordedStart int) RunBudget {
	b := RunBudget{Next: 1, MaxRetries: maxRetries, Allowed: maxRetries + 1}
	for _, n := range names {
		b.Next = max(b.Next, n.Run+1)
		b.Verification = b.Verification || n.IsGate()
	}
	b.Left = max(0, b.Allowed-(b.Next-run.EpisodeStart(recordedStart, b.Next)))
	return b
}

// hookOutlook says whether the stop hook runs the gates at the next stop.
func hookOutlook(settings config.StopHook, logDir string, now time.Time) HookOutlook {
	o := HookOutlook{Enabled: settings.Enabled, IntervalMinutes: settings.RunIntervalMinutes}
	remaining, why := IntervalRemaining(logDir, settings.RunIntervalMinutes, now)
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
// it run the gates again (0 when a run is due), and why a run is due:
// interval 0, no or unreadable execution state, no full pass recorded (the
// interval counts from the last run that covered every applicable gate and
// passed, with no failure since: a partial run, -c or a failure never
// starts it), a pass in the future (a skewed clock never silences the
// hook), the interval elapsed, or failure logs pending (they are always
// verified).
func IntervalRemaining(logDir string, minutes int, now time.Time) (time.Duration, string) {
	if minutes <= 0 {
		return 0, "no run interval is set"
	}
	st, err := state.Read(logDir)
	if err != nil || st == nil {
		return 0, "no earlier run is recorded"
	}
	if pending, err := logdir.HasPendingLogs(logDir); err != nil || pending {
		return 0, "failures are pending (they are always verified)"
	}
	if st.LastFullPassAt.IsZero() {
		return 0, "no full run has passed since the last failure"
	}
	interval := time.Duration(minutes) * time.Minute
	elapsed := now.Sub(st.LastFullPassAt)
	if elapsed < 0 || elapsed >= interval {
		return 0, "the run interval has elapsed"
	}
	return (interval - elapsed + time.Second - 1).Truncate(time.Second), ""
}
