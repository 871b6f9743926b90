package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/alecthomas/kong"
)

// Version is the program version, set at build time with
// -ldflags "-X github.com/agent-gauntlet/agent-gauntlet/cli.Version=...".
// Without it, --version prints the module version the go command recorded
// (`go install ...@v1.2.3` gives v1.2.3), or "dev".
var Version = "dev"

// version returns the version --version prints: Version when the build set
// it, else the main module's version from the build information.
func version() string {
	if Version != "dev" {
		return Version
	}
	if v := moduleVersion(); v != "" && v != "(devel)" {
		return v
	}
	return Version
}

// Env is what every command gets from Main: the context and the standard
// streams, so that no command touches os.Std* or os.Exit.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (os.Getenv outside tests).
	Getenv func(string) string
	// Cwd is the process working directory.
	Cwd string
	// handleSignals, when set, installs the process's deferred signal
	// handlers; see HandleSignals.
	handleSignals func()
}

// HandleSignals makes sure that the process handles the ending signals and
// SIGPIPE as RunProcess sets them up, installing the handlers now if
// RunProcess deferred them (the stop hook's fast paths answer without).
// The stop hook calls it before it starts the gates: a gate must not
// inherit an ignored SIGPIPE, and a signal during a run must release its
// lock.
func (e *Env) HandleSignals() {
	if e.handleSignals != nil {
		e.handleSignals()
	}
}

// CLI is the root of the command line.
type CLI struct {
	Version kong.VersionFlag `short:"V" help:"Print the version and exit."`

	Run          RunCmd          `cmd:"" help:"Run every applicable gate (checks and reviews) for the current changes."`
	Check        CheckCmd        `cmd:"" help:"Run only the check gates for the current changes."`
	Review       ReviewCmd       `cmd:"" help:"Run only the review gates for the current changes."`
	Clean        CleanCmd        `cmd:"" help:"Archive the logs and the execution state into previous/."`
	Cache        CacheCmd        `cmd:"" help:"Show or clear the result cache: the passes and review answers kept under the repository's git directory."`
	Detect       DetectCmd       `cmd:"" help:"Show the changed files and the gates they would run, without running anything."`
	List         ListCmd         `cmd:"" help:"List the configured entry points, checks and reviews."`
	Health       HealthCmd       `cmd:"" help:"Validate the configuration and report the state of every review CLI."`
	Init         InitCmd         `cmd:"" help:"Create a .gauntlet/ configuration and install the agent stop hooks."`
	Validate     ValidateCmd     `cmd:"" help:"Validate .gauntlet/ and list every problem found."`
	Trust        TrustCmd        `cmd:"" help:"Record the work tree's .gauntlet/ as the trusted configuration, the gates the stop hook runs whatever the work tree later says."`
	StopHook     StopHookCmd     `cmd:"" name:"stop-hook" help:"Answer an agent's stop hook: read its JSON on stdin, print one JSON decision."`
	StartHook    StartHookCmd    `cmd:"" name:"start-hook" help:"Answer an agent's session-start hook: tell the new session about failures pending from an earlier one."`
	Hooks        HooksCmd        `cmd:"" help:"Check, per agent, whether the hooks are installed and will run (trust, hooks turned off, installed twice, timeouts); exit 1 when something keeps the gates from running."`
	UpdateReview UpdateReviewCmd `cmd:"" name:"update-review" help:"List the failed reviews' violations, mark one fixed or skipped."`
	Status       StatusCmd       `cmd:"" help:"Show pending failures, review violations, the retry budget, the last run, the stop hook's interval and the lock."`
	CI           CICmd           `cmd:"" name:"ci" help:"Run the gates in GitHub Actions, one job per gate: list the jobs, write the workflow."`
	Help         HelpCmd         `cmd:"" help:"Show help for agent-gauntlet or one of its commands."`
}

// HelpCmd is `agent-gauntlet help [command...]`.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to show help for."`
}

// Run prints the help of the named command, or of the whole program.
func (h *HelpCmd) Run(kctx *kong.Context) error {
	args := append(append([]string{}, h.Command...), "--help")
	_, err := kctx.Kong.Parse(args)
	return err
}

// kongVars are the variables of the help texts: the version, and the
// agents' names (from hookproto's table of agents).
func kongVars(version string) kong.Vars {
	return kong.Vars{"version": version, "agents": hookproto.AgentList()}
}

// exitSignal is panicked by Kong's exit hook and recovered by Main, so that
// Main never calls os.Exit.
type exitSignal struct{ code int }

// Main runs the command line with args and returns the process exit code.
// The caller handles the signals (ctx ends with them), as RunProcess does.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return mainWith(ctx, nil, args, stdin, stdout, stderr)
}

// mainWith is Main in a process whose signal handlers handleSignals
// installs (nil: already installed).
func mainWith(ctx context.Context, handleSignals func(), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil && !isHook(args) {
		return report(stderr, fmt.Errorf("get working directory: %w", err))
	}
	// A git call that waited on a FIFO is stopped (gitcmd's watch); the
	// command's later git calls end at once with the same error.
	ctx, _ = gitcmd.WithWaits(ctx)
	// The stop hook must answer even from a deleted directory: it finds the
	// project from the input's cwd, and without one it has no project.
	env := &Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Cwd: cwd,
		handleSignals: handleSignals}
	return run(env, args)
}

// hookFields are the hook commands, hot paths measured in milliseconds, by
// command name: the field of CLI that defines each.
var hookFields = map[string]string{"stop-hook": "StopHook", "start-hook": "StartHook"}

// isHook reports whether args run a hook command.
func isHook(args []string) bool { return len(args) > 0 && hookFields[args[0]] != "" }

// grammar returns what Kong parses args with: the whole CLI, or, for a
// hook command line that parseHookArgs leaves to Kong (--help, a bad
// flag), a grammar of that one command. Kong builds its model by
// reflection over every command and flag at each start; the one-command
// grammar is made from the same field of CLI, so the hook's flags, help
// and env stay defined in one place.
func grammar(args []string) any {
	if !isHook(args) {
		return &CLI{}
	}
	field, _ := reflect.TypeOf(CLI{}).FieldByName(hookFields[args[0]])
	field.Index, field.Offset = nil, 0
	return reflect.New(reflect.StructOf([]reflect.StructField{field})).Interface()
}

func run(env *Env, args []string) (code int) {
	if cmd, ok := parseHookArgs(args); ok {
		return report(env.Stderr, cmd.Run(env))
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(exitSignal); ok {
				code = e.code
				return
			}
			panic(r)
		}
	}()
	parser, err := kong.New(grammar(args),
		kong.Name("agent-gauntlet"),
		kong.Description("Quality gates for AI coding agents: checks and AI reviews that must pass before the agent may stop."),
		kong.UsageOnError(),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) { panic(exitSignal{c}) }),
		kongVars(version()),
		kong.Bind(env),
		kong.BindTo(env.Ctx, (*context.Context)(nil)),
	)
	if err != nil {
		return report(env.Stderr, err)
	}
	if len(args) == 0 {
		args = []string{"--help"}
	}
	kctx, err := parser.Parse(args)
	if err != nil && args[0] == "stop-hook" {
		// Exit 2 tells Claude Code to block; a mistyped hook flag must allow.
		return StopHookParseFailure(env, args, err)
	}
	if err != nil && args[0] == "start-hook" {
		return StartHookParseFailure(env, err)
	}
	if err != nil {
		return report(env.Stderr, usageError(err))
	}
	// Errors are printed once, here, unless the command printed them.
	return report(env.Stderr, kctx.Run())
}
