package config

import (
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// File and directory names of a project's configuration. One source of truth.
const (
	// Dir is the configuration directory at the project root.
	Dir = ".gauntlet"
	// ProjectFile is the project configuration file inside Dir.
	ProjectFile = "config.yml"
	// ChecksDir holds one check gate per *.yml|*.yaml file inside Dir.
	ChecksDir = "checks"
	// ReviewsDir holds one review gate per *.md file inside Dir.
	ReviewsDir = "reviews"
)

// Defaults of the project configuration.
const (
	DefaultBaseBranch             = "origin/main"
	DefaultLogDir                 = "gauntlet_logs"
	DefaultMaxRetries             = 3
	DefaultRerunNewIssueThreshold = PriorityHigh
	DefaultDebugLogMaxSizeMB      = 10
	DefaultRunIntervalMinutes     = 10
	DefaultNumReviews             = 1
	// DefaultStopHookEnabled is the stop hook's enabled setting when no
	// environment, project or global value is set.
	DefaultStopHookEnabled = true
	// DefaultCacheMaxSizeMB bounds the result cache of a repository.
	DefaultCacheMaxSizeMB = 64
)

// Upper bounds of numeric settings (the README's configuration tables
// state them). Each keeps its value meaningful and its arithmetic far from
// overflow: max_retries+1 runs, minutes as a time.Duration, megabytes as
// bytes.
const (
	// MaxMaxRetries bounds max_retries.
	MaxMaxRetries = 100
	// MaxNumReviews bounds a review's num_reviews: each slot is one AI CLI
	// call on the same diff.
	MaxNumReviews = 10
	// MaxRunIntervalMinutes bounds stop_hook.run_interval_minutes (one day);
	// the environment override above it is ignored.
	MaxRunIntervalMinutes = 24 * 60
	// MaxDebugLogSizeMB bounds debug_log.max_size_mb.
	MaxDebugLogSizeMB = 1024
	// MaxCacheSizeMB bounds cache.max_size_mb.
	MaxCacheSizeMB = 10240
)

// The global (user-level) configuration lives at
// $HOME/GlobalConfigDir/GlobalConfigFile.
const (
	// GlobalConfigDir is the global configuration directory below $HOME.
	GlobalConfigDir = ".config/agent-gauntlet"
	// GlobalConfigFile is the global configuration file inside GlobalConfigDir.
	GlobalConfigFile = "config.yml"
)

// Review CLI adapter names, the only values allowed in cli.default_preference
// and a review's cli_preference.
const (
	AdapterClaude        = "claude"
	AdapterCodex         = "codex"
	AdapterGemini        = "gemini"
	AdapterGitHubCopilot = "github-copilot"
	AdapterCursor        = "cursor"
)

// KnownAdapters returns the adapter names in their documented order.
func KnownAdapters() []string {
	return []string{AdapterClaude, AdapterCodex, AdapterGemini, AdapterGitHubCopilot, AdapterCursor}
}

// IsKnownAdapter reports whether name is one of KnownAdapters.
func IsKnownAdapter(name string) bool { return slices.Contains(KnownAdapters(), name) }

// Environment variables that override stop-hook settings.
const (
	EnvStopHookEnabled         = "GAUNTLET_STOP_HOOK_ENABLED"
	EnvStopHookIntervalMinutes = "GAUNTLET_STOP_HOOK_INTERVAL_MINUTES"
	// EnvStopHookActive is set for every agent CLI the gauntlet starts (review
	// adapters), so that a child agent never re-enters the stop hook.
	EnvStopHookActive = "GAUNTLET_STOP_HOOK_ACTIVE"
)

// Environment variables of CI mode: CI=true or GITHUB_ACTIONS=true turns it
// on; GITHUB_BASE_REF overrides the base branch and GITHUB_SHA is the head
// of the change set.
const (
	EnvCI            = "CI"
	EnvGitHubActions = "GITHUB_ACTIONS"
	EnvGitHubBaseRef = "GITHUB_BASE_REF"
	EnvGitHubSHA     = "GITHUB_SHA"
)

// Priority is a violation priority, ordered critical > high > medium > low.
type Priority string

// The four priorities.
const (
	PriorityCritical Priority = "critical"
	PriorityHigh     Priority = "high"
	PriorityMedium   Priority = "medium"
	PriorityLow      Priority = "low"
)

// Priorities lists the priorities from the most to the least severe.
var Priorities = []Priority{PriorityCritical, PriorityHigh, PriorityMedium, PriorityLow}

// Config is a fully loaded and validated project configuration with every
// default applied.
type Config struct {
	// Root is the absolute project root (the directory holding .gauntlet/).
	Root string
	// BaseBranch is the ref that changes are compared against.
	BaseBranch string
	// LogDir is the log directory as configured (relative to Root unless absolute).
	LogDir string
	// AllowParallel lets parallel gates run concurrently.
	AllowParallel bool
	// MaxRetries bounds verification runs: max_retries+1 runs are allowed.
	MaxRetries int
	// RerunNewIssueThreshold filters new review violations in verification runs.
	RerunNewIssueThreshold Priority
	// CLI holds the review CLI settings.
	CLI CLI
	// EntryPoints in config order.
	EntryPoints []EntryPoint
	// DebugLog is the project's debug_log section (unset fields are nil).
	DebugLog DebugLogSettings
	// StopHook is the project's stop_hook section (unset fields are nil).
	StopHook StopHookSettings
	// Cache is the project's cache section.
	Cache CacheSettings
	// Checks by gate name (file name without extension).
	Checks map[string]*Check
	// Reviews by gate name (file name without .md).
	Reviews map[string]*Review
	// CI is .gauntlet/ci.yml, nil when the project has none.
	CI *CI
	// Baseline is config.yml's baseline: the default of every check's.
	Baseline bool
	// Warnings found while loading (unknown keys and the like), one line each,
	// each naming the file and field.
	Warnings []string
}

// LogDirPath returns the absolute log directory.
func (c *Config) LogDirPath() string { return resolve(c.Root, c.LogDir) }

// CLI is the `cli` section.
type CLI struct {
	// DefaultPreference lists the allowed review adapters in preference order.
	DefaultPreference []string
	// CheckUsageLimit probes adapters for usage limits before use.
	CheckUsageLimit bool
}

// EntryPoint maps a path (fixed, `dir/*` wildcard or glob) to gates.
type EntryPoint struct {
	Path    string
	Exclude []string
	Checks  []string
	Reviews []string
}

// DebugLogSettings is a debug_log section; nil fields were not set.
type DebugLogSettings struct {
	Enabled   *bool
	MaxSizeMB *float64
}

// StopHookSettings is a stop_hook section; nil fields were not set.
type StopHookSettings struct {
	Enabled            *bool
	RunIntervalMinutes *int
	// VerifyOnContinue keeps verifying when the agent continues after a block
	// (stop_hook_active true), bounded by max_retries.
	VerifyOnContinue *bool
}

// CacheSettings is the cache section of config.yml: the result cache of
// the repository, as this project uses it.
type CacheSettings struct {
	// Enabled lets gates take their result from the cache (default true).
	Enabled bool
	// MaxSizeMB bounds the cache; the least recently used results go first.
	MaxSizeMB float64
}

// CacheScope is a gate's cache setting: what its results are keyed by.
type CacheScope string

// The values of a gate's cache setting.
const (
	// CacheTree keys the gate's results by the whole project (`cache:
	// true`, the default).
	CacheTree CacheScope = "tree"
	// CacheEntryPoint keys them by the entry point's subtree and the paths
	// the gate names (`cache: entry_point`).
	CacheEntryPoint CacheScope = "entry_point"
	// CacheOff never takes the gate's result from the cache (`cache:
	// false`): for gates that read the outside world.
	CacheOff CacheScope = "off"
)

// Check is a check gate: a shell command.
type Check struct {
	// Name is the gate name (file name without extension).
	Name string
	// File is the path of the check file relative to Root.
	File string
	// Command is run with `sh -c`; ${BASE_BRANCH} is substituted.
	Command string
	// WorkingDirectory relative to Root; empty means the entry point path.
	WorkingDirectory string
	Parallel         bool
	RunLocally       bool
	RunInCI          bool
	// Timeout is zero when none is set.
	Timeout  time.Duration
	FailFast bool
	// FixInstructionsFile is the configured path relative to .gauntlet/ ("" if none).
	FixInstructionsFile string
	// FixInstructions is the content of FixInstructionsFile.
	FixInstructions string
	// Glob narrows the changed files the check receives to those matching
	// one of these patterns, as written (see MatchesGlob); empty: every
	// changed file of its entry point.
	Glob []string
	// globs are Glob compiled (when loaded).
	globs []*glob.Pattern
	// Baseline: when the check fails, it is run on the merge base too, and
	// a failure the base has as well is pre-existing and does not block.
	// The check's own baseline key, else config.yml's.
	Baseline bool
	// baseline is the check file's baseline key, nil when unset.
	baseline *bool
	// Cache is the gate's cache setting ("" for CacheTree).
	Cache CacheScope
	// Format is the format of the command's output (one of CheckFormats);
	// "" lets the runner recognise it from the command.
	Format string
	// JUnit is the JUnit XML file (or glob of files) the command writes,
	// relative to its working directory; "" for none.
	JUnit string
}

// Review is a review gate: a prompt for AI CLIs.
type Review struct {
	// Name is the gate name (file name without .md).
	Name string
	// File is the path of the review file relative to Root.
	File string
	// Prompt is what the reviewer is asked: the body after the front matter,
	// preceded by the built-in prompt when Builtin is set.
	Prompt string
	// Builtin is the built-in review the file selects (`builtin:`), "" for
	// a review whose prompt is its own body.
	Builtin string
	// OwnText reports that the file has a body of its own (not blank).
	OwnText bool
	// CLIPreference is the adapter order (defaults to cli.default_preference).
	CLIPreference []string
	NumReviews    int
	Parallel      bool
	RunInCI       bool
	RunLocally    bool
	// Timeout per adapter invocation; zero when none is set.
	Timeout time.Duration
	// Model is passed to adapters whose CLI supports it ("" for the CLI default).
	Model string
	// Cache is the gate's cache setting ("" for CacheTree).
	Cache CacheScope
}

// Global is the user-level configuration (~/.config/agent-gauntlet/config.yml).
type Global struct {
	StopHook StopHookSettings
	DebugLog DebugLogSettings
}

// StopHook is the resolved stop-hook configuration:
// env > project > global > defaults, per field.
type StopHook struct {
	Enabled            bool
	RunIntervalMinutes int
	VerifyOnContinue   bool
	// From says where each setting came from, for the messages that must
	// name what switched the hook off or shortened its checks.
	From StopHookOrigins
}

// Origin is where a resolved setting came from.
type Origin string

// The origins of a resolved setting, from the weakest to the strongest.
const (
	// OriginDefault: no source set it.
	OriginDefault Origin = "default"
	// OriginGlobal: the global configuration (GlobalPath).
	OriginGlobal Origin = "global"
	// OriginProject: the project's .gauntlet/config.yml.
	OriginProject Origin = "project"
	// OriginEnv: an environment variable (EnvStopHookEnabled,
	// EnvStopHookIntervalMinutes).
	OriginEnv Origin = "env"
)

// StopHookOrigins says where each field of a StopHook came from.
type StopHookOrigins struct {
	Enabled            Origin
	RunIntervalMinutes Origin
	VerifyOnContinue   Origin
}

// DebugLog is the resolved debug-log configuration.
type DebugLog struct {
	Enabled   bool
	MaxSizeMB float64
}
