package runner

import (
	"context"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Options configure one ExecuteRun (see runner/internal/run/options.go for
// their fields); Kinds selects the gate kinds it runs.
type (
	Options = run.Options
	Kinds   = run.Kinds
)

// The gate kinds of `run`, `check` and `review`.
const (
	KindsAll     = run.KindsAll
	KindsChecks  = run.KindsChecks
	KindsReviews = run.KindsReviews
)

// Console lines a run prints when it has nothing to do; `detect` prints
// them too.
const (
	LineNoChanges         = run.LineNoChanges
	LineNoApplicableGates = run.LineNoApplicableGates
)

// ExecuteRun runs the gauntlet in-process and returns its result; it never
// exits the process. The lock is released on every path; a panic becomes
// StatusError. The engine is runner/internal/run: its stages are listed in
// run.go there.
func ExecuteRun(ctx context.Context, opts Options) RunResult { return run.Execute(ctx, opts) }

// LockMaxAge is the age past which a lock of the project cfg is stale: the
// longest a run of its configuration can last plus the time a run takes
// to stop; 0 when runs are unbounded (a gate without timeout).
func LockMaxAge(cfg *config.Config) time.Duration { return run.LockMaxAge(cfg) }

// GatesDuration is the longest the gates of a run of cfg can take (every
// gate for its timeout, each review on each of its CLIs), false when a gate
// has no timeout: what an agent's hook timeout must leave room for.
func GatesDuration(cfg *config.Config) (time.Duration, bool) { return run.GatesDuration(cfg) }
