package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// StopHookCmd is `agent-gauntlet stop-hook`: it reads the agent's stop-hook
// input on stdin and prints exactly one JSON decision line on stdout. It
// always exits 0, whatever happens after flag parsing: a bad flag value is
// a warning on stderr and its default is used.
//
// Flag values are plain strings on purpose: a parse error would exit 2, which
// Claude Code reads as "block and show stderr to the model".
type StopHookCmd struct {
	Agent         string `help:"Agent whose hook protocol to speak: ${agents}. Detected from the input (or the client's hook environment) when empty." placeholder:"NAME"`
	Timeout       string `help:"Seconds after which the agent kills this hook (the timeout of its hook entry); the gates are stopped well before. Without it the detected client's default hook timeout is assumed, at most 300 s (the timeout earlier installers wrote)." env:"GAUNTLET_STOP_HOOK_TIMEOUT" placeholder:"SECONDS"`
	Deadline      string `hidden:"" help:"Overrides the hook's own deadline (a Go duration such as 90s), for tests." env:"GAUNTLET_STOP_HOOK_DEADLINE"`
	ClientTimeout string `hidden:"" name:"client-timeout" help:"Overrides the detected client's default hook timeout (a Go duration), for tests." env:"GAUNTLET_STOP_HOOK_CLIENT_TIMEOUT"`
	StdinTimeout  string `hidden:"" name:"stdin-timeout" help:"Overrides how long to wait for the hook input (a Go duration), for tests." env:"GAUNTLET_STOP_HOOK_STDIN_TIMEOUT"`
}

// Run executes the command.
func (c *StopHookCmd) Run(env *Env) error {
	warn := func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, "agent-gauntlet stop-hook: warning: "+format+"\n", args...)
	}
	agent, err := hookproto.ParseAgent(c.Agent)
	if err != nil {
		warn("--agent: %v; detecting the agent from the input", err)
		agent = ""
	}
	timeout, deadline := hookDeadline(c.Timeout, c.Deadline, warn)
	stdinTimeout, _ := parseHookDuration(c.StdinTimeout, "--stdin-timeout", warn)
	clientTimeout, _ := parseHookDuration(c.ClientTimeout, "--client-timeout", warn)

	stophook.Run(env.Ctx, stophook.Options{
		Agent:         agent,
		Stdin:         env.Stdin,
		Stdout:        env.Stdout,
		Stderr:        env.Stderr,
		Getenv:        env.Getenv,
		Cwd:           env.Cwd,
		StdinTimeout:  stdinTimeout,
		AgentTimeout:  timeout,
		ClientTimeout: clientTimeout,
		Deadline:      deadline,
		BeforeRun:     env.HandleSignals,
		Version:       CacheVersion,
	})
	return nil
}

// hookDeadline reads the --timeout and --deadline values: the agent's
// timeout (0 when not given or not valid: the stop hook then assumes the
// client's default, stophook.AssumedTimeout) and the deadline override (0
// for none).
func hookDeadline(timeout, deadline string, warn func(string, ...any)) (agentTimeout, override time.Duration) {
	if timeout != "" {
		n, err := strconv.Atoi(strings.TrimSpace(timeout))
		if err != nil || n <= 0 {
			warn("--timeout %q is not a positive number of seconds; assuming the client's default hook timeout", timeout)
		} else {
			agentTimeout = time.Duration(min(int64(n), math.MaxInt64/int64(time.Second))) * time.Second
		}
	}
	override, _ = parseHookDuration(deadline, "--deadline", warn)
	return agentTimeout, override
}

// parseHookDuration reads an optional positive duration flag, warning about a
// bad value.
func parseHookDuration(s, flag string, warn func(string, ...any)) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		warn("%s %q is not a positive duration; ignored", flag, s)
		return 0, false
	}
	return d, true
}

// StopHookParseFailure answers a stop-hook invocation whose command line
// could not be parsed (an unknown flag, say): one JSON line that lets the
// agent stop (status error, in the dialect of a readable --agent in args),
// the error on stderr, and exit code 0, since a non-zero exit would make
// Claude Code block the agent with the usage text. Main calls it when
// parsing fails and args name the stop-hook command.
func StopHookParseFailure(env *Env, args []string, err error) int {
	var agent hookproto.Agent
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--agent=")
		if !ok && a == "--agent" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			agent, _ = hookproto.ParseAgent(v)
		}
	}
	fmt.Fprintf(env.Stderr, "agent-gauntlet stop-hook: %v\n", err)
	stophook.Run(env.Ctx, stophook.Options{
		Agent: agent, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Getenv: env.Getenv, Cwd: env.Cwd, Fault: err,
	})
	return ExitOK
}
