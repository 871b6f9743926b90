package gate

import (
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// The facts of a job that depend on its kind, one method each: a new gate
// kind adds its case to each (and a row to the engine's table of kinds,
// runner/internal/run/kinds.go).

// File is the file the job's gate is defined in, relative to the project
// root.
func (j Job) File() string {
	switch {
	case j.Check != nil:
		return j.Check.File
	case j.Review != nil:
		return j.Review.File
	}
	return ""
}

// Timeout is the job's configured timeout (0: none).
func (j Job) Timeout() time.Duration {
	switch {
	case j.Check != nil:
		return j.Check.Timeout
	case j.Review != nil:
		return j.Review.Timeout
	}
	return 0
}

// FailFast reports whether the job stops the sequential lane of the
// scheduler when it fails.
func (j Job) FailFast() bool { return j.Check != nil && j.Check.FailFast }

// CacheSetting is the gate's cache setting (its `cache` field; "" for
// the default).
func (j Job) CacheSetting() config.CacheScope {
	switch {
	case j.Check != nil:
		return j.Check.Cache
	case j.Review != nil:
		return j.Review.Cache
	}
	return ""
}

// Defined reports whether the job holds the configuration of its kind's
// gate, and no other.
func (j Job) Defined() bool {
	switch j.Kind {
	case KindCheck:
		return j.Check != nil && j.Review == nil
	case KindReview:
		return j.Review != nil && j.Check == nil
	}
	return false
}

// Command is the shell command the job runs ("" for a kind that runs
// none).
func (j Job) Command() string {
	if j.Kind == KindCheck && j.Check != nil {
		return j.Check.Command
	}
	return ""
}

// ReadsDiff reports whether the job judges the change's diff itself (a
// review): it is given the run's snapshot tree and the agent's skip
// decisions, its result depends on what the diff is computed from, and the
// execution state records its definition.
func (j Job) ReadsDiff() bool { return j.Kind == KindReview }
