package runner

import (
	"context"
	"io"
	"time"
)

// Scope selects which gate kinds a run executes.
type Scope string

// The three scopes: `run`, `check` and `review`.
const (
	ScopeAll     Scope = "all"
	ScopeChecks  Scope = "checks"
	ScopeReviews Scope = "reviews"
)

// Options configure one ExecuteRun.
type Options struct {
	// Dir is the project root or a directory below it; empty means the process cwd.
	Dir string
	// Scope selects checks, reviews or both.
	Scope Scope
	// Command names the invoking command for the debug log ("run", "check",
	// "review", "stop-hook").
	Command string
	// BaseBranch overrides base_branch (-b).
	BaseBranch string
	// Gate restricts the run to one gate name (-g).
	Gate string
	// Commit reviews one commit (-c).
	Commit string
	// Uncommitted restricts the changes to staged, unstaged and untracked (-u).
	Uncommitted bool
	// Silent sends nothing to Stdout/Stderr; logs are written as usual.
	Silent bool
	// Stdout and Stderr are the terminal; nil means discard.
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// RunResult is the outcome of ExecuteRun.
type RunResult struct {
	Status  GauntletStatus
	Message string
	// ConsoleLogPath is the absolute path of this run's console.N.log ("" when
	// none was written).
	ConsoleLogPath string
	// ErrorMessage details an error status.
	ErrorMessage string
	GatesRun     int
	GatesFailed  int
	// Fixed and Skipped count review violations fixed and skipped in this run.
	Fixed   int
	Skipped int
	// IntervalMinutes is the stop-hook interval in force (stop hook only).
	IntervalMinutes int
}

// ExecuteRun runs the gauntlet in-process and returns its result; it never
// exits the process.
func ExecuteRun(ctx context.Context, opts Options) RunResult {
	return RunResult{Status: StatusError, Message: "not implemented yet", ErrorMessage: "runner: ExecuteRun not implemented yet"}
}
