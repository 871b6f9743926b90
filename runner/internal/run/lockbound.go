package run

import (
	"context"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
)

// Bounds of a run's duration, for the lock (lock.Bounds).
const (
	// runOverhead bounds what a run does besides its gates (git questions,
	// the work tree's snapshot, preflights, logs), generously.
	runOverhead = 10 * time.Minute
	// stopGrace is how long a run whose context ended may take to stop its
	// gates (their process groups killed, a WaitDelay of seconds) and
	// release the lock.
	stopGrace = time.Minute
	// maxBound is the longest bound GatesDuration and MaxRunDuration give;
	// a configuration whose timeouts add up to more has none.
	maxBound = 7 * 24 * time.Hour
)

// MaxRunDuration is the longest a run of the configuration cfg can last,
// false when nothing bounds it (a gate without timeout): GatesDuration plus
// runOverhead. The lock of a run is stale once it is older than that.
func MaxRunDuration(cfg *config.Config) (time.Duration, bool) {
	d, ok := GatesDuration(cfg)
	if !ok || d+runOverhead > maxBound {
		return 0, false
	}
	return d + runOverhead, true
}

// GatesDuration is the longest the gates of a run of the configuration cfg
// can take, false when nothing bounds them (a gate without timeout). Every
// job the configuration can give (entry.Configured, locally or in CI) runs
// at most once per run and the lanes at most add up: a check for its
// timeout; a review slot for its timeout on each CLI of its preference (a
// slot is handed to the next CLI when one is over its usage limit), each
// CLI probed once (a usage probe is bounded by adapter.ProbeTimeout).
func GatesDuration(cfg *config.Config) (time.Duration, bool) {
	var total time.Duration
	probed, seen := map[string]bool{}, map[string]bool{}
	for _, j := range entry.Configured(cfg) {
		if seen[j.ID] {
			continue // a job of both places: one run runs it in one
		}
		seen[j.ID] = true
		switch {
		case j.Check != nil:
			if j.Check.Timeout <= 0 || j.Check.Timeout > maxBound {
				return 0, false
			}
			total += j.Check.Timeout
		case j.Review != nil:
			if j.Review.Timeout <= 0 || j.Review.Timeout > maxBound {
				return 0, false
			}
			prefs := j.Review.CLIPreference
			if len(prefs) == 0 {
				prefs = cfg.CLI.DefaultPreference
			}
			calls := max(j.Review.NumReviews, 1) * max(len(prefs), 1)
			if total > maxBound || j.Review.Timeout > maxBound/time.Duration(calls) {
				return 0, false
			}
			total += time.Duration(calls) * j.Review.Timeout
			for _, p := range prefs {
				if !probed[p] {
					probed[p] = true
					total += adapter.ProbeTimeout
				}
			}
		}
		if total > maxBound {
			return 0, false
		}
	}
	return total, true
}

// LockMaxAge is the age past which a lock of the project cfg is stale
// (lock.Bounds.MaxAge): MaxRunDuration plus stopGrace, 0 when runs are
// unbounded.
func LockMaxAge(cfg *config.Config) time.Duration {
	d, ok := MaxRunDuration(cfg)
	if !ok {
		return 0
	}
	return d + stopGrace
}

// lockBounds are the bounds of the lock of a run of cfg under ctx: locks older than the
// longest run of the configuration are stale, and this run's own lock is
// stale after its deadline: the earliest of its start plus the longest run
// and its context's deadline (the stop hook's), each plus stopGrace.
func lockBounds(ctx context.Context, cfg *config.Config) lock.Bounds {
	b := lock.Bounds{MaxAge: LockMaxAge(cfg)}
	var ends []time.Time
	if b.MaxAge > 0 {
		ends = append(ends, time.Now().Add(b.MaxAge))
	}
	if d, ok := ctx.Deadline(); ok {
		ends = append(ends, d.Add(stopGrace))
	}
	if len(ends) > 0 {
		b.Deadline = slices.MinFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	}
	return b
}
