package cli

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
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
	agent, timeout := c.settings(warn)
	_, deadline := hookDeadline("", c.Deadline, warn)
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

// settings reads the flags an installed hook's command line sets: the
// agent (empty to detect it) and the client's hook timeout (0 for its
// default), warning about values it ignores.
func (c *StopHookCmd) settings(warn func(string, ...any)) (hookproto.Agent, time.Duration) {
	agent, err := hookproto.ParseAgent(c.Agent)
	if err != nil {
		warn("--agent: %v; detecting the agent from the input", err)
		agent = ""
	}
	timeout, _ := hookDeadline(c.Timeout, "", warn)
	return agent, timeout
}

// readStopArgs is the stop hook's parse of the arguments inv passes it
// (parseHookArgs, else Kong's, as run does), for the hook doctor: the
// command line's own variable assignments stand for the flags' env
// variables.
func readStopArgs(inv hookcmd.Invocation) (out hookcmd.StopArgs) {
	args := append([]string{string(install.StopHook)}, inv.Args...)
	lookup := func(name string) (string, bool) {
		for _, kv := range slices.Backward(inv.Env) {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	cmd, ok := parseHookArgsEnv(args, lookup)
	if !ok {
		cmd, out.Err = kongParseHook(args)
		if out.Err != nil {
			return out
		}
	}
	stop, _ := cmd.(*StopHookCmd)
	if stop == nil {
		out.Err = fmt.Errorf("not a stop-hook command line")
		return out
	}
	out.Agent, out.Timeout = stop.settings(func(format string, args ...any) {
		out.Warnings = append(out.Warnings, fmt.Sprintf(format, args...))
	})
	return out
}

// kongParseHook parses a hook command line with Kong, as run does when
// parseHookArgs cannot, without running it.
func kongParseHook(args []string) (cmd hookCommand, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitSignal); !ok {
				panic(r)
			}
			err = fmt.Errorf("the command line asks for help or the version: the hook runs nothing")
		}
	}()
	grammar := grammar(args)
	parser, err := kong.New(grammar, kong.Name("agent-gauntlet"), kong.Writers(io.Discard, io.Discard),
		kong.Exit(func(c int) { panic(exitSignal{c}) }), kongVars(version()))
	if err != nil {
		return nil, err
	}
	if _, err := parser.Parse(args); err != nil {
		return nil, err
	}
	field := reflect.ValueOf(grammar).Elem().Field(0)
	cmd, _ = field.Addr().Interface().(hookCommand)
	return cmd, nil
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
