// Package doctor tells, for each agent, whether the gauntlet's hooks are
// installed in a project and whether the client will actually run them to
// their end: a client that skips hooks it was not told to trust, hooks
// turned off in its settings, the same gates installed twice for one
// client, a hook timeout shorter than the configuration's longest run.
//
// It only reads: the project's settings files (through the install
// package, which reads the rows of hookproto.Dialects) and the clients'
// user settings under HOME. Each problem says how to fix it.
package doctor

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Problem is one reason an installed hook will not do its job.
type Problem struct {
	// Kind names the situation (see the constants).
	Kind string `json:"kind"`
	// Blocking is true when the gates will not run, or not to their end,
	// at the agent's stops; false for a waste (the gates run twice).
	Blocking bool `json:"blocking"`
	// Message says what is wrong; Fix the command or setting that fixes it.
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// The kinds of problem.
const (
	KindUntrustedProject = "untrusted_project"
	KindUntrustedHook    = "untrusted_hook"
	KindUntrustedFolder  = "untrusted_folder"
	KindHooksDisabled    = "hooks_disabled"
	KindHookDisabled     = "hook_disabled"
	KindInstalledTwice   = "installed_twice"
	KindTimeoutShort     = "timeout_shorter_than_run"
	KindTimeoutMismatch  = "timeout_above_client"
	KindUnreadable       = "unreadable"
	KindBadCommand       = "bad_command"
	KindNotRun           = "never_runs"
	KindNotOnPath        = "program_not_found"
	KindTimerOverflow    = "timeout_beyond_timer"
	KindStopHookDisabled = "stop_hook_disabled"
	KindRunUnbounded     = "run_unbounded"
)

// Hook is one of an agent's hooks in the project.
type Hook struct {
	Installed bool `json:"installed"`
	// Path is the settings file checked (absolute).
	Path    string `json:"path"`
	Command string `json:"command,omitempty"`
	// TimeoutSeconds is how long the client lets the hook run.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// Error is set when the file cannot be read or parsed.
	Error string `json:"error,omitempty"`
	// Count is how many gauntlet hooks of this kind the file holds.
	Count int `json:"count,omitempty"`
	// Plugin names the Claude Code plugin that holds the hook when no
	// settings file does.
	Plugin string `json:"plugin,omitempty"`
}

// Agent is the report of one agent.
type Agent struct {
	Agent   hookproto.Agent `json:"agent"`
	Display string          `json:"display"`
	Stop    Hook            `json:"stop"`
	// Start is the session-start hook, nil when the client has none.
	Start    *Hook     `json:"start,omitempty"`
	Problems []Problem `json:"problems"`
}

// Report is what Examine found.
type Report struct {
	// Root is the project root.
	Root string `json:"root"`
	// LongestRunSeconds is the configuration's longest possible run, 0
	// when it is unbounded or unknown.
	LongestRunSeconds float64 `json:"longest_run_seconds,omitempty"`
	// Problems are the gauntlet's own: what keeps every agent's hook from
	// running the gates, whatever the client.
	Problems []Problem `json:"problems"`
	Agents   []Agent   `json:"agents"`
}

// Blocking reports whether any problem keeps the gates from running.
func (r Report) Blocking() bool {
	for _, p := range r.Problems {
		if p.Blocking {
			return true
		}
	}
	for _, a := range r.Agents {
		for _, p := range a.Problems {
			if p.Blocking {
				return true
			}
		}
	}
	return false
}

// Options say where to look.
type Options struct {
	// Root is the project root.
	Root string
	// ClaudeSettings overrides Claude Code's settings file ("" for the
	// row's), as install.Check takes it.
	ClaudeSettings string
	// Getenv reads the environment: HOME and the clients' variables.
	Getenv func(string) string
	// ReadStop is the stop hook's own parse of the arguments of an
	// installed command line (nil: none is checked).
	ReadStop func(hookcmd.Invocation) hookcmd.StopArgs
}

// env is what a check reads besides the project.
type env struct {
	root     string
	home     string
	getenv   func(string) string
	readStop func(hookcmd.Invocation) hookcmd.StopArgs
	longest  time.Duration
}

// Examine reports every agent of hookproto.Dialects.
func Examine(ctx context.Context, o Options) Report {
	e := env{root: o.Root, getenv: o.Getenv, home: o.Getenv("HOME"), readStop: o.ReadStop}
	r := Report{Root: o.Root, Problems: []Problem{}}
	if cfg, err := config.LoadProject(ctx, o.Root, config.ReadGates); err == nil {
		if sh := config.Resolve(cfg, o.Getenv).StopHook; !sh.Enabled {
			r.Problems = append(r.Problems, Problem{Kind: KindStopHookDisabled, Blocking: true,
				Message: fmt.Sprintf("stop_hook.enabled is false (%s): every stop is approved without running the gates", origin(sh.From.Enabled)),
				Fix:     fmt.Sprintf("remove stop_hook.enabled: false from %s", origin(sh.From.Enabled))})
		}
		if d, ok := runner.GatesDuration(cfg); ok {
			e.longest = d
			r.LongestRunSeconds = d.Seconds()
		} else {
			r.Problems = append(r.Problems, Problem{Kind: KindRunUnbounded,
				Message: "a gate of the configuration has no timeout (or one too long to add up): no hook timeout is sure to outlast a run, and the doctor cannot check the clients' against it",
				Fix:     "give every check and review a timeout in .gauntlet/"})
		}
	}
	for _, d := range hookproto.Dialects {
		override := ""
		if d.Agent == hookproto.Claude {
			override = o.ClaudeSettings
		}
		r.Agents = append(r.Agents, e.agent(d, override))
	}
	return r
}

// agent examines one agent.
func (e env) agent(d hookproto.Dialect, override string) Agent {
	a := Agent{Agent: d.Agent, Display: d.Display, Problems: []Problem{}}
	stop := install.CheckHook(e.root, d.Agent, override, install.StopHook)
	a.Stop = hookOf(stop)
	if d.Agent.HasStart() {
		h := hookOf(install.CheckHook(e.root, d.Agent, override, install.StartHook))
		a.Start = &h
	}
	if stop.Err != nil {
		a.Problems = append(a.Problems, Problem{Kind: KindUnreadable, Blocking: true,
			Message: fmt.Sprintf("%s cannot read its hooks from %s either (%s)", d.Display, e.rel(stop.Path),
				strings.TrimPrefix(stop.Err.Error(), stop.Path+": ")),
			Fix: "fix the file's JSON, then run `agent-gauntlet init --agent " + string(d.Agent) + "`"})
	}
	if !stop.Installed && stop.Err == nil {
		if st, ok := e.elsewhere(d, stop.Path); ok {
			stop = st
			a.Stop = hookOf(st)
		}
	}
	if !stop.Installed {
		for _, ig := range stop.Ignored {
			a.Problems = append(a.Problems, Problem{Kind: KindNotRun, Blocking: true,
				Message: fmt.Sprintf("the hook entry %q in %s never runs the stop hook: %s", ig.Command, e.rel(stop.Path), ig.Why),
				Fix: fmt.Sprintf("make the command `%s`, or remove the entry and run `agent-gauntlet init --agent %s`",
					install.Command(d.Agent, install.DefaultTimeoutSeconds), d.Agent)})
		}
		if d.Agent == hookproto.Claude {
			e.byPlugin(&a)
		}
		return a
	}
	args, problems := e.command(d, stop)
	a.Problems = append(a.Problems, problems...)
	for _, check := range clientChecks[d.Agent] {
		a.Problems = append(a.Problems, check(e, d, stop)...)
	}
	a.Problems = append(a.Problems, installedTwice(e, d, stop)...)
	a.Problems = append(a.Problems, e.timeout(d, stop, args)...)
	return a
}

// command checks that the installed command line runs the stop hook to
// its end: its program is found, and the stop hook accepts its arguments
// (read with the hook's own parse). It returns what the hook makes of them.
func (e env) command(d hookproto.Dialect, st install.Status) (hookcmd.StopArgs, []Problem) {
	inv, _ := hookcmd.Find(st.Command, string(install.StopHook))
	var out []Problem
	if missing := e.missingProgram(inv); missing != "" {
		out = append(out, Problem{Kind: KindNotOnPath, Blocking: true,
			Message: fmt.Sprintf("%s is not found on PATH: the hook's command fails with \"command not found\" at every stop and %s lets the agent stop",
				missing, d.Display),
			Fix: fmt.Sprintf("install agent-gauntlet where %s's PATH finds it, or write the program's absolute path in %s", d.Display, e.rel(st.Path))})
	}
	if e.readStop == nil {
		return hookcmd.StopArgs{}, out
	}
	args := e.readStop(inv)
	if args.Err != nil {
		out = append(out, Problem{Kind: KindBadCommand, Blocking: true,
			Message: fmt.Sprintf("the stop hook rejects its command line (%v): it answers an error at every stop and runs no gate", args.Err),
			Fix:     fmt.Sprintf("make the command in %s `%s`", e.rel(st.Path), install.Command(d.Agent, install.DefaultTimeoutSeconds))})
		return args, out
	}
	for _, w := range args.Warnings {
		out = append(out, Problem{Kind: KindBadCommand,
			Message: "the stop hook warns about its command line: " + w,
			Fix:     fmt.Sprintf("correct the command in %s", e.rel(st.Path))})
	}
	return args, out
}

// missingProgram is the program (or package runner) of inv that the PATH
// does not hold, "" when it is found or cannot be told (a path built from
// a variable).
func (e env) missingProgram(inv hookcmd.Invocation) string {
	prog := inv.Program
	if inv.Runner != "" {
		prog = inv.Runner
	}
	if prog == "" || strings.Contains(prog, "$") || strings.Contains(prog, "`") {
		return ""
	}
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.root, p)
		}
		if isExecutable(p) {
			return ""
		}
		return prog
	}
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if dir != "" && isExecutable(filepath.Join(dir, prog)) {
			return ""
		}
	}
	return prog
}

// isExecutable reports whether p is a file someone may execute.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0
}

// byPlugin marks Claude Code's hooks installed by the gauntlet's plugin,
// when it is enabled: its hooks.json runs the stop hook with --timeout
// 600 and timeout 600, and the session-start hook.
func (e env) byPlugin(a *Agent) {
	pl := claudePlugins(e)
	if len(pl) == 0 {
		return
	}
	where := "plugin " + pl[0].name + " (enabled in " + pl[0].where + ")"
	a.Stop = Hook{Installed: true, Plugin: where, TimeoutSeconds: install.DefaultTimeoutSeconds, Count: 1}
	if a.Start != nil {
		a.Start = &Hook{Installed: true, Plugin: where, TimeoutSeconds: install.StartTimeoutSeconds, Count: 1}
	}
}

func hookOf(st install.Status) Hook {
	h := Hook{Installed: st.Installed, Path: st.Path, Command: st.Command, Count: st.Count,
		TimeoutSeconds: st.Timeout.Seconds()}
	if st.Err != nil {
		h.Error = st.Err.Error()
	}
	return h
}

// timeout checks that the client lets the hook run as long as the hook
// believes (its --timeout, else the default it assumes) and that the hook's
// own deadline leaves the configuration's longest run time to finish.
func (e env) timeout(d hookproto.Dialect, st install.Status, args hookcmd.StopArgs) []Problem {
	if args.Err != nil {
		return nil // the hook runs no gate: KindBadCommand says so
	}
	told := args.Timeout
	if told <= 0 {
		told = stophook.AssumedTimeout(d.Agent)
	}
	key, file := d.Settings.Layout.TimeoutKey(), e.rel(st.Path)
	if d.TimerLimit > 0 && st.Timeout > d.TimerLimit {
		limit := int(d.TimerLimit / time.Second)
		return []Problem{{Kind: KindTimerOverflow, Blocking: true,
			Message: fmt.Sprintf("%s's hook timeout of %s is beyond the longest its timer holds (%s): it fires at once and kills the hook before it answers",
				d.Display, st.Timeout, d.TimerLimit),
			Fix: fmt.Sprintf("set %q of the hook in %s to %d or less (seconds: %d), and its --timeout to match", key, file,
				d.Settings.Timeout.Write(limit), limit)}}
	}
	var out []Problem
	if told > st.Timeout {
		out = append(out, Problem{Kind: KindTimeoutMismatch, Blocking: true,
			Message: fmt.Sprintf("%s kills the hook after %s but the hook expects %s: a long run is killed before it answers, and the stop goes through unrecorded",
				d.Display, st.Timeout, told),
			Fix: fmt.Sprintf("set %q of the hook in %s to the seconds of --timeout (%d)", key, file, int(told.Seconds()))})
	}
	limit := stophook.DeadlineFor(min(told, st.Timeout))
	if e.longest > limit {
		need := neededTimeout(e.longest)
		out = append(out, Problem{Kind: KindTimeoutShort, Blocking: true,
			Message: fmt.Sprintf("the gates may run for %s, but the hook stops them at %s (%s's hook timeout %s): a slow run ends as infrastructure_error and the agent stops unverified",
				e.longest, limit, d.Display, min(told, st.Timeout)),
			Fix: fmt.Sprintf("set %q of the hook in %s to %d and its --timeout to %d (or shorten the gates' timeouts)", key, file,
				d.Settings.Timeout.Write(need), need)})
	}
	return out
}

// neededTimeout is a hook timeout, in whole seconds, whose deadline
// (stophook.DeadlineFor) leaves a run of longest time to finish: the
// deadline keeps a tenth of the timeout, and at least 5 s, for the answer.
func neededTimeout(longest time.Duration) int {
	return int(math.Ceil((longest + longest/9 + 5*time.Second).Seconds()))
}

// twice is the problem of gates installed twice for one client: they run
// twice per stop.
func twice(d hookproto.Dialect, what, fix string) Problem {
	return Problem{Kind: KindInstalledTwice, Message: what + ": the gates run more than once at every stop", Fix: fix}
}

// origin names where a stop-hook setting came from.
func origin(o config.Origin) string {
	switch o {
	case config.OriginEnv:
		return "the environment variable " + config.EnvStopHookEnabled
	case config.OriginGlobal:
		return "the global configuration"
	case config.OriginProject:
		return ".gauntlet/config.yml"
	}
	return "the default"
}

// rel shows p relative to the project root when it lies inside it.
func (e env) rel(p string) string {
	if r, err := filepath.Rel(e.root, p); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return p
}
