package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// HooksCmd is `agent-gauntlet hooks`: per agent, whether the gauntlet's stop
// hook, and its session-start hook where the agent has one, is installed in
// the project and in which file.
type HooksCmd struct {
	SettingsFile string `name:"settings-file" help:"Claude Code settings file to check instead of .claude/settings.json (and settings.local.json)." placeholder:"FILE"`
}

// Run executes the command.
func (c *HooksCmd) Run(env *Env) error {
	root, ok := config.FindRoot(env.Cwd)
	if !ok {
		root = env.Cwd
	}
	override := ""
	if c.SettingsFile != "" {
		override = c.SettingsFile
		if !filepath.IsAbs(override) {
			override = filepath.Join(env.Cwd, override) // as typed, from where it was typed
		}
	}
	fmt.Fprintf(env.Stdout, "Stop hooks of %s:\n", runner.SafeText(root))
	c.report(env, root, override, install.StopHook)
	fmt.Fprintln(env.Stdout, "Session-start hooks (they tell a new session about pending failures):")
	c.report(env, root, override, install.StartHook)
	return nil
}

// report writes one line per agent that has hook: installed or not, where.
func (c *HooksCmd) report(env *Env, root, claudeOverride string, hook install.Hook) {
	for _, a := range hookproto.Agents {
		if _, ok := install.SpecForHook(a, hook); !ok {
			continue
		}
		override := ""
		if a == hookproto.Claude {
			override = claudeOverride
		}
		st := install.CheckHook(root, a, override, hook)
		state, where := "not installed", shownPath(root, st.Path)
		switch {
		case st.Err != nil:
			state, where = "unreadable", runner.SafeText(strings.TrimPrefix(st.Err.Error(), st.Path+": "))
			where = shownPath(root, st.Path) + ": " + where
		case st.Installed:
			state = "installed"
			where += "  (" + runner.SafeText(st.Command) + ")"
		}
		fmt.Fprintf(env.Stdout, "  %-12s %-14s %s\n", a.DisplayName(), state, where)
		if st.Installed && hook == install.StopHook {
			if note := noTimeoutNote(st.Command); note != "" {
				fmt.Fprintf(env.Stdout, "  %-12s %-14s Note: %s\n", "", "", note)
			}
		}
	}
}

// noTimeoutNote explains what a found hook command without --timeout (as
// the TypeScript tool installed it) means, "" for one with it.
func noTimeoutNote(command string) string {
	if install.HasTimeout(command) {
		return ""
	}
	return fmt.Sprintf("no --timeout in this command: the hook assumes the agent kills it after %d s and stops the gates at %d s; "+
		"to allow longer runs, add --timeout with the entry's timeout in seconds",
		int(stophook.DefaultAgentTimeout.Seconds()), int(stophook.DeadlineFor(0).Seconds()))
}

// shownPath shows p relative to root when it lies inside it, through
// runner.SafeText.
func shownPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return runner.SafeText(rel)
	}
	return runner.SafeText(p)
}
