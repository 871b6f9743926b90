package run

import (
	"io"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Kinds selects which gate kinds a run executes.
type Kinds string

// The gate kinds of `run`, `check` and `review`.
const (
	KindsAll     Kinds = "all"
	KindsChecks  Kinds = "checks"
	KindsReviews Kinds = "reviews"
)

// Options configure one run (Execute).
type Options struct {
	// Dir is the project root or a directory below it; empty means the
	// process cwd. Project, when set, is the project the caller opened
	// (config.OpenProject): the run reads its configuration from it, and
	// Dir is not looked at.
	Dir     string
	Project *config.Project
	// Settings are the effective settings the caller resolved
	// (config.Resolve); nil resolves them with Getenv.
	Settings *config.Effective
	// Kinds selects checks, reviews or both; empty means KindsAll.
	Kinds Kinds
	// Command is the invoking command with its flags, as the caller spells
	// them, for the debug log's COMMAND event ("check -g lint",
	// "stop-hook"); "" is "run".
	Command string
	// BaseBranch overrides base_branch (-b).
	BaseBranch string
	// Gate restricts the run to one gate name (-g).
	Gate string
	// WorkingDir restricts the run to the gates whose working directory is
	// this path relative to the project root (--working-directory): one job
	// of `ci list-jobs`.
	WorkingDir string
	// Commit looks at one past commit (-c): its changes, outside the work
	// tree's lifecycle (own log space, no retry budget, no verification,
	// no archiving, no execution state).
	Commit string
	// Uncommitted restricts the changes to staged, unstaged and untracked (-u).
	Uncommitted bool
	// SessionID is the agent session the stop hook runs for (its input's
	// session_id), "" from the command line. After the retry limit, a run
	// of another session starts a fresh budget.
	SessionID string
	// StartPoint is the commit HEAD named when a person accepted the gates
	// in force (the trusted record's), "" when unknown. A run whose base
	// branch holds HEAD, with no point of the branch seen to pass, looks
	// at the work committed since it (see begun.reachBack).
	StartPoint string
	// Agent is true for a run the agent's stop hook makes: only such runs
	// spend the retry budget, and only they are refused at its limit. A
	// run by hand (run, check, review) is outside the budget; its verdicts
	// are recorded like any other's.
	Agent bool
	// Untrusted says that the configuration the run judges with is not the
	// one the stop hook runs (a run by hand of a work tree whose
	// configuration differs from the trusted one): the run reads the
	// gauntlet's records and writes none of them, so what a weakened
	// configuration "verified" never clears a verdict or opens the interval.
	Untrusted bool
	// NobodyTrusted says that no one trusted the configuration the run
	// judges with: the project has no trust record and no configuration
	// committed at HEAD stands in, so the stop hook runs the work tree's
	// too, saying that nobody trusted it. A run by hand of it records its
	// verdicts, but it is the agent's own word on gates the agent wrote:
	// no full run of the gates in force (project.fullRun), so its pass
	// never starts the stop hook's interval, ends an episode or marks a
	// point seen to pass. The stop hook's own run (Agent) counts: its
	// answer tells that the gates were untrusted.
	NobodyTrusted bool
	// Precheck, when set, is the caller's own check of the run, made once
	// the project is loaded and before anything is locked or written: its
	// error refuses the run as a configuration error (RunResult.ConfigErr,
	// unprinted). The CLI refuses report files among the gauntlet's own
	// files this way.
	Precheck func(cfg *config.Config) error
	// Version is the agent-gauntlet version that keys the result cache;
	// "" runs without the cache.
	Version string
	// NoCache takes no result from the cache (--no-cache): every gate
	// runs, and the passes are recorded as usual.
	NoCache bool
	// Silent sends nothing to Stdout/Stderr; logs are written as usual.
	Silent bool
	// Stdout and Stderr are the terminal; nil means discard. Every line a
	// run prints (progress, gate lines, summary, errors) goes to Stderr;
	// Stdout is left alone.
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}
