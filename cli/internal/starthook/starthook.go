// Package starthook answers an agent's session-start hook (Claude Code's,
// Qwen Code's and Factory Droid's SessionStart, Cursor's and Copilot CLI's
// sessionStart): when failures from an earlier
// session are pending in the project, the new session is told so, how to
// see them and which gates the project runs; otherwise it is told nothing.
//
// Run never blocks the session and never fails: it prints exactly one line
// of JSON ({} when there is nothing to say) and the caller exits 0. It
// runs no git command and no gate: it reads the configuration, the log
// directory and the execution state.
package starthook

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Options configure Run. Zero values take the defaults.
type Options struct {
	// Agent selects the dialect; "" detects it from the input.
	Agent hookproto.Agent
	// Stdin is the hook input; Stdout receives the one answer line; Stderr
	// diagnostics.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Cwd is the process working directory, used when the input names none.
	Cwd string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// StdinTimeout bounds the wait for the input
	// (stophook.DefaultStdinTimeout).
	StdinTimeout time.Duration
}

// maxListed bounds the gate names listed per kind.
const maxListed = 12

// Run answers one session start and returns the context it added ("" for
// none). A panic becomes no context.
func Run(ctx context.Context, o Options) (added string) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Agent == "" {
		o.Agent = hookproto.FromEnv(o.Getenv)
	}
	agent := o.Agent
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(o.Stderr, "agent-gauntlet start-hook: panic: %v\n%s", r, debug.Stack())
			added = ""
		}
		_, _ = o.Stdout.Write(hookproto.EncodeSessionStart(agent, added))
	}()
	in, note := read(ctx, o)
	if note != "" {
		fmt.Fprintf(o.Stderr, "agent-gauntlet start-hook: %s\n", note)
		return ""
	}
	agent = in.Agent
	getenv := o.Getenv
	if config.StopHookActive(getenv) {
		return "" // one of the gauntlet's own review CLIs
	}
	dir := hookproto.SessionProject(hookproto.Input{Agent: in.Agent, Dir: in.Dir}, getenv, o.Cwd).Dir
	if dir == "" {
		dir = o.Cwd
	}
	cfg, err := config.LoadProject(ctx, dir, config.ReadGates)
	if err != nil {
		return "" // no project here, or one whose configuration the stop hook will report
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	told := Context(cfg, runner.Status(ctx, cfg, getenv, now()))
	if notice := stophook.TakeNotice(cfg.LogDirPath()); notice != "" {
		// A stop the client let through without showing anyone why.
		told = strings.TrimSpace("agent-gauntlet: " + runner.SafeText(notice) +
			" Tell the user: only they can change the hook's settings.\n" + told)
	}
	return told
}

// read reads and decodes the input; note says why there is no answer.
func read(ctx context.Context, o Options) (hookproto.SessionStart, string) {
	timeout := o.StdinTimeout
	if timeout <= 0 {
		timeout = stophook.DefaultStdinTimeout
	}
	stdin := o.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	data, err := stophook.ReadInput(ctx, stdin, stophook.MaxInput, timeout)
	if err != nil {
		return hookproto.SessionStart{Agent: o.Agent}, err.Error()
	}
	in, err := hookproto.DecodeSessionStart(data, o.Agent)
	if err != nil {
		if o.Agent == "" {
			in.Agent = hookproto.Detect(data)
		}
		return in, err.Error()
	}
	return in, ""
}

// Context is what a new session is told about the project of cfg in state
// st: "" when nothing is pending; otherwise what failed in an earlier
// session, how to see it, how to act on review violations, and which gates
// the stop hook runs.
func Context(cfg *config.Config, st runner.ProjectStatus) string {
	if !st.Pending() {
		return ""
	}
	var b strings.Builder
	b.WriteString("agent-gauntlet: failures from an earlier session are pending in this project (")
	b.WriteString(runner.SafeText(cfg.Root))
	b.WriteString(").\n")
	if len(st.FailedChecks) > 0 {
		fmt.Fprintf(&b, "- Failed checks: %s\n", list(st.FailedChecks))
	}
	if len(st.FailedReviews) > 0 {
		v := st.Violations
		fmt.Fprintf(&b, "- Failed reviews: %s (violations: %d new, %d fixed, %d skipped)\n", list(st.FailedReviews), v.New, v.Fixed, v.Skipped)
	}
	if len(st.PreExisting) > 0 {
		fmt.Fprintf(&b, "- Failing on the base branch too, not caused by the change (they do not block; do not fix them): %s\n", list(st.PreExisting))
	}
	b.WriteString("See them with `agent-gauntlet status`; `agent-gauntlet update-review list` lists the review violations with their ids, " +
		"and `agent-gauntlet update-review fix <id> \"<what you changed>\"` or `agent-gauntlet update-review skip <id> \"<why>\"` records what you did about each.\n")
	checks, reviews := gateNames(cfg)
	fmt.Fprintf(&b, "When you try to stop, the stop hook runs this project's gates (checks: %s; reviews: %s) and sends you back while any fails", list(checks), list(reviews))
	if st.Run.Left > 0 {
		fmt.Fprintf(&b, " (%d run(s) left before the retry limit)", st.Run.Left)
	}
	b.WriteString(". Do not run the gauntlet yourself.")
	return b.String()
}

// gateNames are the check and review gates the entry points name, each once,
// in configuration order.
func gateNames(cfg *config.Config) (checks, reviews []string) {
	seen := map[string]bool{}
	add := func(list *[]string, kind, name string) {
		if !seen[kind+name] {
			seen[kind+name] = true
			*list = append(*list, name)
		}
	}
	for _, ep := range cfg.EntryPoints {
		for _, c := range ep.Checks {
			add(&checks, "c", c)
		}
		for _, r := range ep.Reviews {
			add(&reviews, "r", r)
		}
	}
	return checks, reviews
}

// list renders names safely on one line, at most maxListed of them.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	shown := names
	if len(shown) > maxListed {
		shown = shown[:maxListed]
	}
	out := make([]string, len(shown))
	for i, n := range shown {
		out[i] = runner.SafeText(n)
	}
	s := strings.Join(out, ", ")
	if len(names) > maxListed {
		s += fmt.Sprintf(" and %d more", len(names)-maxListed)
	}
	return s
}
