package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// InitCmd is `agent-gauntlet init`: it creates .gauntlet/ in the current
// directory and installs the agents' stop hooks.
//
// In a directory that already has .gauntlet/ the configuration is left as it
// is; hooks are still installed for the agents named with --agent (and only
// those), since installing is idempotent and was asked for explicitly.
type InitCmd struct {
	Yes          bool     `short:"y" help:"Accept every default instead of asking."`
	BaseBranch   string   `name:"base-branch" short:"b" help:"Ref the changes are compared against (base_branch). Default origin/main." placeholder:"BRANCH"`
	CLI          []string `name:"cli" help:"Review CLIs for cli.default_preference (claude, codex, gemini, github-copilot, cursor), repeatable or comma-separated. Default: the ones found on PATH, else claude." placeholder:"NAME"`
	Agent        []string `help:"Agents to install the stop hook for (claude, codex, gemini, cursor, copilot, all or none), repeatable or comma-separated. Default: the agents of the review CLIs, else claude." placeholder:"NAME"`
	SettingsFile string   `name:"settings-file" help:"Claude Code settings file to install the hook into, instead of .claude/settings.json." placeholder:"FILE"`
	HookTimeout  int      `name:"hook-timeout" default:"600" help:"Seconds the agents give the stop hook before killing it (written into each hook); the hook stops the gates well before." placeholder:"SECONDS"`
}

// initMaxAttempts bounds the re-asking of one question.
const initMaxAttempts = 3

// Run executes the command.
func (c *InitCmd) Run(env *Env) error {
	if c.HookTimeout <= 0 {
		return usageError(fmt.Errorf("--hook-timeout must be a positive number of seconds"))
	}
	clis, err := install.ParseCLIs(c.CLI)
	if err != nil {
		return usageError(fmt.Errorf("--cli: %w", err))
	}
	agents, agentsGiven, err := parseAgentFlag(c.Agent)
	if err != nil {
		return usageError(err)
	}
	root := env.Cwd
	if _, err := os.Lstat(filepath.Join(root, config.Dir)); err == nil {
		fmt.Fprintf(env.Stdout, "%s/ already exists in %s: the configuration is left unchanged.\n", config.Dir, root)
		if !agentsGiven {
			return nil
		}
		return c.installHooks(env, root, agents)
	}

	p := &prompter{in: bufio.NewReader(env.Stdin), out: env.Stdout, ask: !c.Yes}
	base := c.BaseBranch
	if base == "" {
		if base, err = p.line("Base branch your changes are compared against", config.DefaultBaseBranch); err != nil {
			return err
		}
	}
	if len(clis) == 0 {
		def := install.DefaultCLIs(install.DetectCLIs())
		clis, err = askList(p, "Review CLIs to use (claude, codex, gemini, github-copilot, cursor)", def,
			func(v string) ([]string, error) { return install.ParseCLIs([]string{v}) })
		if err != nil {
			return err
		}
	}
	if !agentsGiven {
		def := install.DefaultAgents(clis)
		agents, err = askList(p, "Install the stop hook for which agents (claude, codex, gemini, cursor, copilot, all, none)",
			def, func(v string) ([]hookproto.Agent, error) {
				a, _, err := parseAgentFlag([]string{v})
				return a, err
			})
		if err != nil {
			return err
		}
	}

	written, err := install.Scaffold(root, install.ScaffoldOptions{BaseBranch: base, CLIs: clis})
	for _, f := range written {
		fmt.Fprintf(env.Stdout, "Created %s\n", f)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := c.installHooks(env, root, agents); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Next: add your lint and test commands as checks in %s, then run `agent-gauntlet run`.\n",
		filepath.Join(config.Dir, config.ChecksDir))
	return nil
}

// installHooks installs every agent's hook, reporting each; a failure does
// not stop the others but fails the command.
func (c *InitCmd) installHooks(env *Env, root string, agents []hookproto.Agent) error {
	failed := false
	for _, a := range agents {
		opts := install.Options{TimeoutSeconds: c.HookTimeout}
		if a == hookproto.Claude {
			opts.Path = c.SettingsFile
		}
		res, err := install.Install(root, a, opts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agent-gauntlet: %s stop hook: %v\n", a.DisplayName(), err)
			failed = true
			continue
		}
		where := shownPath(root, res.Path)
		if !res.Added {
			fmt.Fprintf(env.Stdout, "%s stop hook already installed in %s\n", a.DisplayName(), where)
			if note := noTimeoutNote(res.Command); note != "" {
				fmt.Fprintf(env.Stdout, "  Note: %s\n", note)
			}
			continue
		}
		fmt.Fprintf(env.Stdout, "Installed the %s stop hook in %s\n", a.DisplayName(), where)
		if spec, _ := install.SpecFor(a); spec.Note != "" {
			fmt.Fprintf(env.Stdout, "  Note: %s\n", spec.Note)
		}
	}
	if failed {
		return silentExit(ExitFailure)
	}
	return nil
}

// parseAgentFlag reads --agent values; "none" installs nothing. given
// reports whether any value was passed.
func parseAgentFlag(values []string) (agents []hookproto.Agent, given bool, err error) {
	var rest []string
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "":
			case "none":
				given = true
			default:
				given = true
				rest = append(rest, name)
			}
		}
	}
	agents, err = install.ParseAgents(rest)
	return agents, given, err
}

// prompter asks init's questions on stdin/stdout; with ask false, or at the
// end of the input, every question takes its default.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
	ask bool
	eof bool
}

// readLine asks question and returns the trimmed answer, "" at EOF.
func (p *prompter) readLine(question, def string) (string, error) {
	if !p.ask || p.eof {
		return "", nil
	}
	fmt.Fprintf(p.out, "%s [%s]: ", question, def)
	s, err := p.in.ReadString('\n')
	if errors.Is(err, io.EOF) {
		p.eof = true
		fmt.Fprintln(p.out)
	} else if err != nil {
		return "", fmt.Errorf("read answer: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// line asks for one free-form value.
func (p *prompter) line(question, def string) (string, error) {
	s, err := p.readLine(question, def)
	if err != nil || s == "" {
		return def, err
	}
	return s, nil
}

// askList asks for a comma-separated list, re-asking on a bad answer.
func askList[T any](p *prompter, question string, def []T, parse func(string) ([]T, error)) ([]T, error) {
	shown := make([]string, len(def))
	for i, d := range def {
		shown[i] = fmt.Sprint(d)
	}
	for range initMaxAttempts {
		s, err := p.readLine(question, strings.Join(shown, ","))
		if err != nil {
			return nil, err
		}
		if s == "" {
			return def, nil
		}
		v, err := parse(s)
		if err == nil {
			return v, nil
		}
		fmt.Fprintf(p.out, "%v\n", err)
	}
	return nil, usageError(fmt.Errorf("init: no valid answer to %q after %d attempts", question, initMaxAttempts))
}
