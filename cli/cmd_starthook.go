package cli

import (
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/starthook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// StartHookCmd is `agent-gauntlet start-hook`: it answers an agent's
// session-start hook (see hookproto.Dialects: Claude Code's, Qwen Code's
// and Factory Droid's SessionStart, Cursor's and Copilot CLI's
// sessionStart) with one JSON line that tells the new session about
// failures pending from an earlier one, or {} when there are none. It always exits 0 and never
// blocks the session; like the stop hook, a bad flag value is a warning.
type StartHookCmd struct {
	Agent        string `help:"Agent whose hook protocol to speak: ${agents} (Cursor and Copilot CLI have their own answers, the others Claude Code's). Detected from the input (or the client's hook environment) when empty." placeholder:"NAME"`
	StdinTimeout string `hidden:"" name:"stdin-timeout" help:"Overrides how long to wait for the hook input (a Go duration), for tests." env:"GAUNTLET_STOP_HOOK_STDIN_TIMEOUT"`
}

// Run executes the command.
func (c *StartHookCmd) Run(env *Env) error {
	warn := func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, "agent-gauntlet start-hook: warning: "+format+"\n", args...)
	}
	agent, err := hookproto.ParseAgent(c.Agent)
	if err != nil {
		warn("--agent: %v; detecting the agent from the input", err)
		agent = ""
	}
	stdinTimeout, _ := parseHookDuration(c.StdinTimeout, "--stdin-timeout", warn)
	starthook.Run(env.Ctx, starthook.Options{
		Agent: agent, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Getenv: env.Getenv, Cwd: env.Cwd, StdinTimeout: stdinTimeout,
	})
	return nil
}

// StartHookParseFailure answers a start-hook invocation whose command line
// could not be parsed: {} (nothing added), the error on stderr, exit 0.
func StartHookParseFailure(env *Env, err error) int {
	fmt.Fprintf(env.Stderr, "agent-gauntlet start-hook: %v\n", err)
	_, _ = env.Stdout.Write(hookproto.EncodeSessionStart("", ""))
	return ExitOK
}
