package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/doctor"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// HooksCmd is `agent-gauntlet hooks`: per agent, whether the gauntlet's stop
// hook, and its session-start hook where the agent has one, is installed in
// the project and in which file, and whether the client will actually run
// it (trust, settings that turn hooks off, the gates installed twice, a
// hook timeout shorter than the longest run). It exits 1 when something
// keeps the gates from running.
type HooksCmd struct {
	SettingsFile string `name:"settings-file" help:"Claude Code settings file to check instead of .claude/settings.json (and settings.local.json)." placeholder:"FILE"`
	JSON         bool   `name:"json" help:"Print the report as one JSON object."`
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
	report := doctor.Examine(env.Ctx, doctor.Options{Root: root, ClaudeSettings: override, Getenv: env.Getenv,
		ReadStop: readStopArgs})
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return fmt.Errorf("hooks: %w", err)
		}
	} else {
		writeHooks(env, report)
	}
	if report.Blocking() {
		return exitPrinted(ExitFailure)
	}
	return nil
}

// writeHooks prints the report: one line per agent and hook, then one line
// per problem with its fix, then a verdict.
func writeHooks(env *Env, r doctor.Report) {
	fmt.Fprintf(env.Stdout, "Stop hooks of %s:\n", runner.SafeText(r.Root))
	for _, p := range r.Problems {
		writeProblem(env, p)
	}
	for _, a := range r.Agents {
		writeHook(env, r.Root, a.Display, a.Stop)
		if note := noTimeoutNote(a.Agent, a.Stop.Command); a.Stop.Installed && a.Stop.Plugin == "" && note != "" {
			fmt.Fprintf(env.Stdout, "  %-14s %-14s Note: %s\n", "", "", note)
		}
		for _, p := range a.Problems {
			writeProblem(env, p)
		}
	}
	fmt.Fprintln(env.Stdout, "Session-start hooks (they tell a new session about pending failures):")
	for _, a := range r.Agents {
		if a.Start != nil {
			writeHook(env, r.Root, a.Display, *a.Start)
		}
	}
	switch blocking, warnings := counts(r); {
	case blocking > 0:
		fmt.Fprintf(env.Stdout, "%d problem(s) keep the gates from running at the agents' stops: fix them as said above.\n", blocking)
	case warnings > 0:
		fmt.Fprintf(env.Stdout, "The installed hooks will run; %d warning(s) above.\n", warnings)
	default:
		fmt.Fprintln(env.Stdout, "Nothing keeps the installed hooks from running.")
	}
}

// writeProblem prints one problem's line with its fix.
func writeProblem(env *Env, p doctor.Problem) {
	word := "Warning"
	if p.Blocking {
		word = "Problem"
	}
	fmt.Fprintf(env.Stdout, "  %-14s %-14s %s: %s. Fix: %s.\n", "", "", word, runner.SafeText(p.Message), runner.SafeText(p.Fix))
}

// writeHook prints one hook's line: installed or not, where.
func writeHook(env *Env, root, display string, h doctor.Hook) {
	state, where := "not installed", shownPath(root, h.Path)
	switch {
	case h.Error != "":
		state = "unreadable"
		where += ": " + runner.SafeText(strings.TrimPrefix(h.Error, h.Path+": "))
	case h.Plugin != "":
		state, where = "installed", runner.SafeText(h.Plugin)
	case h.Installed:
		state = "installed"
		where += "  (" + runner.SafeText(h.Command) + ")"
	}
	fmt.Fprintf(env.Stdout, "  %-14s %-14s %s\n", display, state, where)
}

// counts counts the blocking problems and the warnings.
func counts(r doctor.Report) (blocking, warnings int) {
	all := [][]doctor.Problem{r.Problems}
	for _, a := range r.Agents {
		all = append(all, a.Problems)
	}
	for _, problems := range all {
		for _, p := range problems {
			if p.Blocking {
				blocking++
			} else {
				warnings++
			}
		}
	}
	return blocking, warnings
}

// noTimeoutNote explains what a found hook command without --timeout (as
// the TypeScript tool installed it) means, "" for one with it.
func noTimeoutNote(agent hookproto.Agent, command string) string {
	inv, ok := hookcmd.Find(command, string(install.StopHook))
	if !ok || readStopArgs(inv).Timeout > 0 {
		return ""
	}
	assumed := stophook.AssumedTimeout(agent)
	return fmt.Sprintf("no --timeout in this command: the hook assumes the agent kills it after %d s and stops the gates at %d s; "+
		"to allow longer runs, add --timeout with the entry's timeout in seconds",
		int(assumed.Seconds()), int(stophook.DeadlineFor(assumed).Seconds()))
}

// shownPath shows p relative to root when it lies inside it, through
// runner.SafeText.
func shownPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return runner.SafeText(rel)
	}
	return runner.SafeText(p)
}
