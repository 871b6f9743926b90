package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/repo"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stack"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// InitCmd is `agent-gauntlet init`: it finds the projects in the current
// directory (Go, Node, Python, Rust, Java, Make), proposes the checks their
// own tools define, tries each once on the tree, and writes .gauntlet/ with
// those that pass (and, with baseline: true, those that fail); then it
// installs the agents' stop hooks.
//
// In a directory that already has .gauntlet/ the configuration is left as it
// is; hooks are still installed for the agents named with --agent (and only
// those), since installing is idempotent and was asked for explicitly. In a
// directory below a project, init refuses: that project already covers it.
type InitCmd struct {
	Yes          bool     `short:"y" help:"Accept every default instead of asking: every check that passed, the failing ones with baseline: true (they block only for failures the base branch does not have), the log directory added to .gitignore."`
	DryRun       bool     `name:"dry-run" help:"Print what would be written, and write nothing (the proposed checks are still tried)."`
	BaseBranch   string   `name:"base-branch" short:"b" help:"Ref the changes are compared against (base_branch). Default: the remote's default branch, else main or master, else the current branch's upstream." placeholder:"BRANCH"`
	CLI          []string `name:"cli" help:"Review CLIs for cli.default_preference (claude, codex, gemini, github-copilot, cursor), repeatable or comma-separated. Default: the ones found on PATH, else claude." placeholder:"NAME"`
	Agent        []string `help:"Agents to install the stop hook for (${agents}, all or none), repeatable or comma-separated. Default: the agents of the review CLIs, else claude." placeholder:"NAME"`
	SettingsFile string   `name:"settings-file" help:"Claude Code settings file to install the hook into, instead of .claude/settings.json." placeholder:"FILE"`
	HookTimeout  int      `name:"hook-timeout" default:"600" help:"Seconds the agents give the stop hook before killing it (written into each hook); the hook stops the gates well before." placeholder:"SECONDS"`
	Review       []string `help:"Built-in reviews to write (code-quality, security, error-handling, test-integrity, or none), repeatable or comma-separated. Default: code-quality." placeholder:"NAME"`
}

// initAnswers are what init asked, or took by default.
type initAnswers struct {
	base, baseNote string
	clis           []string
	clisGiven      bool
	agents         []hookproto.Agent
	gitignore      bool
	// reviews are the built-in reviews to write.
	reviews []string
}

// Run executes the command.
func (c *InitCmd) Run(env *Env) error {
	if c.HookTimeout <= 0 {
		return usageError(fmt.Errorf("--hook-timeout must be a positive number of seconds"))
	}
	// Every client but Codex runs on Node.js, whose timers fire at once
	// when set beyond this: the client would kill the hook at its start.
	if limit := int(hookproto.NodeTimerLimit / time.Second); c.HookTimeout > limit {
		return usageError(fmt.Errorf("--hook-timeout %d is beyond %d seconds, the longest timeout the agents' timers hold (a longer one fires at once)",
			c.HookTimeout, limit))
	}
	clis, err := install.ParseCLIs(c.CLI)
	if err != nil {
		return usageError(fmt.Errorf("--cli: %w", err))
	}
	agents, agentsGiven, err := parseAgentFlag(c.Agent)
	if err != nil {
		return usageError(err)
	}
	reviews, err := install.ParseReviews(c.Review)
	if err != nil {
		return usageError(fmt.Errorf("--review: %w", err))
	}
	root := env.Cwd
	if above, ok := config.FindRoot(root); ok && !sameDir(above, root) {
		return usageError(fmt.Errorf("init: %s is inside the project at %s (it has %s): run init there, or use that project",
			runner.SafeText(root), runner.SafeText(above), filepath.Join(config.Dir, config.ProjectFile)))
	}
	if _, err := os.Lstat(filepath.Join(root, config.Dir)); err == nil {
		fmt.Fprintf(env.Stdout, "%s/ already exists in %s: the configuration is left unchanged.\n", config.Dir, runner.SafeText(root))
		if !agentsGiven {
			return nil
		}
		if err := c.checkHookPaths(root, agents); err != nil {
			return err
		}
		return c.installHooks(env, root, agents)
	}

	p := newPrompter(env.Ctx, env.Stdin, env.Stdout, !c.Yes)
	defer p.close()
	a := initAnswers{clis: clis, clisGiven: len(clis) > 0, agents: agents}
	if err := c.ask(env.Ctx, p, root, agentsGiven, &a); err != nil {
		return initError(env.Ctx, err)
	}
	items, err := c.propose(env, p, root, a.base)
	if err != nil {
		return initError(env.Ctx, err)
	}
	if a.gitignore, err = askGitignore(env.Ctx, p, root); err != nil {
		return initError(env.Ctx, err)
	}
	a.reviews = reviews
	if len(c.Review) == 0 {
		if a.reviews, _, err = askList(p, "Built-in reviews to add (code-quality, security, error-handling, test-integrity, none)",
			install.DefaultReviews(), func(v string) ([]string, error) { return install.ParseReviews([]string{v}) }); err != nil {
			return initError(env.Ctx, err)
		}
	}
	if items, err = c.ensureGate(env, root, a.base, items, reviewNote(a) == "" && len(a.reviews) > 0); err != nil {
		return initError(env.Ctx, err)
	}
	plan := install.BuildPlan(install.PlanOptions{BaseBranch: a.base, BaseNote: a.baseNote, CLIs: a.clis,
		ReviewNote: reviewNote(a), Reviews: a.reviews}, items)
	if env.Ctx.Err() != nil {
		return initError(env.Ctx, env.Ctx.Err())
	}
	if c.DryRun {
		return c.dryRun(env, root, plan, a)
	}
	return c.write(env, root, plan, a)
}

// ask asks for the base branch, the review CLIs and the agents.
func (c *InitCmd) ask(ctx context.Context, p *prompter, root string, agentsGiven bool, a *initAnswers) error {
	a.base = c.BaseBranch
	if a.base == "" {
		def, why, ok := repo.BaseBranch(ctx, root)
		if !ok {
			def, why = config.DefaultBaseBranch, "the default: no branch found in this repository"
		}
		var err error
		if a.base, err = p.line("Base branch your changes are compared against", def); err != nil {
			return err
		}
		if a.base == def {
			a.baseNote = why
		}
	}
	if len(a.clis) == 0 {
		def := install.DefaultCLIs(install.DetectCLIs())
		var err error
		a.clis, a.clisGiven, err = askList(p, "Review CLIs to use (claude, codex, gemini, github-copilot, cursor)", def,
			func(v string) ([]string, error) { return install.ParseCLIs([]string{v}) })
		if err != nil {
			return err
		}
	}
	if !agentsGiven {
		def := install.DefaultAgents(a.clis)
		var err error
		a.agents, _, err = askList(p, "Install the stop hook for which agents ("+hookproto.AgentList()+", all, none)",
			def, func(v string) ([]hookproto.Agent, error) {
				ag, _, err := parseAgentFlag([]string{v})
				return ag, err
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// reviewNote is why the review stays out of entry_points, "" when it is
// listed: it is, when a chosen review CLI is installed or the CLIs were named.
func reviewNote(a initAnswers) string {
	if a.clisGiven {
		return ""
	}
	for _, found := range install.DetectCLIs() {
		for _, c := range a.clis {
			if c == found {
				return ""
			}
		}
	}
	return "no review CLI installed"
}

// propose detects the projects, tries their checks and asks about each;
// the whitespace sample is tried too when nothing else passed.
func (c *InitCmd) propose(env *Env, p *prompter, root, base string) ([]install.Item, error) {
	files, err := repo.Files(env.Ctx, root)
	if err != nil {
		if files, err = stack.Walk(root); err != nil {
			return nil, fmt.Errorf("list the files of %s: %w", root, err)
		}
	}
	projects := stack.Detect(env.Ctx, root, files, machineTools{})
	if len(projects) == 0 {
		fmt.Fprintln(env.Stderr, "No Go, Node, Python, Rust, Java or Make project found here.")
	}
	for _, pr := range projects {
		fmt.Fprintf(env.Stderr, "Found %s in %s\n", pr.Label, showDir(pr.Dir))
	}
	items := tryProposals(env.Ctx, env.Stderr, root, base, projects)
	if !anyPassed(items) && env.Ctx.Err() == nil {
		fmt.Fprintln(env.Stderr, "No proposed check passed: trying the whitespace check of uncommitted changes instead.")
		items = append(items, tryProposals(env.Ctx, env.Stderr, root, base, []stack.Project{sampleProject()})...)
	}
	if err := env.Ctx.Err(); err != nil {
		return nil, err
	}
	for i := range items {
		if err := askItem(p, &items[i]); err != nil {
			return nil, err
		}
	}
	return items, env.Ctx.Err()
}

// sampleProject is the whitespace check, init's gate of last resort.
func sampleProject() stack.Project {
	return stack.Project{Dir: ".", Proposals: []stack.Proposal{{Name: install.SampleCheck, Command: install.SampleCheckCommand,
		Parallel: true, Timeout: stack.FormatTimeout}}}
}

// ensureGate adds the whitespace check when nothing else would run: without
// a listed review, the configuration needs one gate.
func (c *InitCmd) ensureGate(env *Env, root, base string, items []install.Item, reviewListed bool) ([]install.Item, error) {
	if reviewListed || anyRuns(items) {
		return items, nil
	}
	fmt.Fprintln(env.Stderr, "Nothing else would run: adding the whitespace check of uncommitted changes.")
	extra := tryProposals(env.Ctx, env.Stderr, root, base, []stack.Project{sampleProject()})
	for i := range extra {
		extra[i].Choice = install.Add // the configuration needs one gate
	}
	return append(items, extra...), env.Ctx.Err()
}

// anyRuns reports whether a chosen item will be a check that runs.
func anyRuns(items []install.Item) bool {
	for _, it := range items {
		switch {
		case it.Outcome == install.Missing || it.Choice == install.Skip:
		case it.Choice == install.Add, install.BaselineSupported:
			return true
		}
	}
	return false
}

// anyPassed reports whether an item passed its trial.
func anyPassed(items []install.Item) bool {
	for _, it := range items {
		if it.Outcome == install.Passed {
			return true
		}
	}
	return false
}

// askItem asks what to write for one tried proposal.
func askItem(p *prompter, it *install.Item) error {
	pr := it.Proposal
	switch it.Outcome {
	case install.Passed:
		ans, err := p.choose(fmt.Sprintf("Add check %s in %s (%s): it passed", pr.Name, showDir(it.Dir), install.Shown(pr)),
			[]string{"yes", "no"}, "yes")
		if err != nil {
			return err
		}
		if ans == "no" {
			it.Choice = install.Skip
		}
	case install.Failed:
		how := "commented out"
		if install.BaselineSupported {
			how = "with baseline: true"
		}
		ans, err := p.choose(fmt.Sprintf("Check %s in %s (%s) failed: %s. Write it %s (yes), enabled all the same (enable), or not at all (no)?",
			pr.Name, showDir(it.Dir), install.Shown(pr), it.Failure, how), []string{"yes", "enable", "no"}, "yes")
		if err != nil {
			return err
		}
		switch ans {
		case "enable":
			it.Choice = install.Add
		case "no":
			it.Choice = install.Skip
		}
	}
	return nil
}

// askGitignore decides whether the log directory goes into .gitignore: not
// when git already ignores it, else asked (default yes).
func askGitignore(ctx context.Context, p *prompter, root string) (bool, error) {
	entry := install.GitignoreEntry(config.DefaultLogDir)
	if ignored, err := repo.Ignored(ctx, root, config.DefaultLogDir+"/"); err == nil && ignored {
		return false, nil
	}
	ans, err := p.choose(fmt.Sprintf("Add %s (the run logs) to %s", entry, install.GitignoreFile), []string{"yes", "no"}, "yes")
	return ans == "yes", err
}

// dryRun prints what init would write.
func (c *InitCmd) dryRun(env *Env, root string, plan *install.Plan, a initAnswers) error {
	for _, f := range plan.Files() {
		fmt.Fprintf(env.Stdout, "--- %s ---\n%s", f.Rel, f.Content)
	}
	fmt.Fprintln(env.Stdout, "---")
	if a.gitignore {
		fmt.Fprintf(env.Stdout, "Would add %s to %s\n", install.GitignoreEntry(config.DefaultLogDir), install.GitignoreFile)
	}
	for _, ag := range a.agents {
		path := ""
		if ag == hookproto.Claude {
			path = c.SettingsFile
		}
		for _, hook := range []install.Hook{install.StopHook, install.StartHook} {
			if _, ok := install.SpecForHook(ag, hook); !ok {
				continue
			}
			st := install.CheckHook(root, ag, path, hook)
			if st.Installed {
				fmt.Fprintf(env.Stdout, "%s %s already installed in %s\n", ag.DisplayName(), hookNames[hook], shownPath(root, st.Path))
				continue
			}
			fmt.Fprintf(env.Stdout, "Would install the %s %s in %s\n", ag.DisplayName(), hookNames[hook], shownPath(root, st.Path))
		}
	}
	fmt.Fprintln(env.Stdout, "Dry run: nothing was written.")
	return nil
}

// write writes the plan, the .gitignore line and the hooks.
func (c *InitCmd) write(env *Env, root string, plan *install.Plan, a initAnswers) error {
	if err := c.checkHookPaths(root, a.agents); err != nil {
		return err
	}
	if a.gitignore {
		if err := owned.CheckFile(root, filepath.Join(root, install.GitignoreFile)); err != nil {
			return usageError(fmt.Errorf("init: %w: nothing was written", err))
		}
	}
	written, err := install.WriteFiles(root, plan.Files())
	for _, f := range written {
		fmt.Fprintf(env.Stdout, "Created %s\n", f)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	trustWritten(env, root)
	markStart(env, root, a.base)
	if a.gitignore {
		entry := install.GitignoreEntry(config.DefaultLogDir)
		added, err := install.AddToGitignore(root, entry)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		if added {
			fmt.Fprintf(env.Stdout, "Added %s to %s\n", entry, install.GitignoreFile)
		}
	}
	if reviewNote(a) != "" && len(plan.Reviews()) > 0 {
		fmt.Fprintf(env.Stdout, "No review CLI is installed: the %s review is written but left out of %s; install one (claude, codex, gemini, copilot, cursor-agent) and uncomment it there.\n",
			strings.Join(plan.Reviews(), ", "), filepath.Join(config.Dir, config.ProjectFile))
	}
	if err := c.installHooks(env, root, a.agents); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "Done: the stop hook now runs these gates whenever the agent wants to stop. `agent-gauntlet run` runs them by hand.")
	return nil
}

// checkHookPaths refuses, before init writes anything, a hook settings
// file of agents that is outside the project, a link or below one, or not
// a regular file (install.CheckPaths): a usage error, nothing written.
func (c *InitCmd) checkHookPaths(root string, agents []hookproto.Agent) error {
	if err := install.CheckPaths(root, agents, c.SettingsFile); err != nil {
		return usageError(fmt.Errorf("init: %w: nothing was written", err))
	}
	return nil
}

// markStart records where the agent's work starts (runner.MarkStart) and,
// when the base branch is the branch checked out in a repository without a
// remote, says what that means: commits on it are the agent's work,
// checked from that point, not the base's own.
func markStart(env *Env, root, base string) {
	branch, point, err := runner.MarkStart(env.Ctx, root)
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: cannot record where the work starts: %v\n", err)
		return
	}
	if point == "" || branch != base || len(repo.Remotes(env.Ctx, root)) > 0 {
		return
	}
	from := "the empty repository (there is no commit yet)"
	if point != runner.EmptyTree {
		from = "commit " + point[:min(len(point), 12)] + " (HEAD now)"
	}
	fmt.Fprintf(env.Stdout, "There is no remote: base_branch %q is the branch you work on, so what is committed on it is checked from the last point its gates passed, starting at %s.\n",
		runner.SafeText(base), from)
}

// initError turns an error of the questions or trials into init's error:
// a signal ends init with 128+n and nothing written; no valid answer is a
// usage error.
func initError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		code := 130
		var se *SignalError
		if errors.As(cause, &se) {
			code = se.ExitCode()
		}
		return &ExitError{Code: code, Err: fmt.Errorf("init: %v: nothing was written", cause)}
	}
	if errors.Is(err, errNoAnswer) {
		return usageError(fmt.Errorf("init: %w", err))
	}
	return fmt.Errorf("init: %w", err)
}

// sameDir reports whether a and b are the same directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// installHooks installs every agent's stop hook, and its session-start
// hook where the agent has one, reporting each; a failure does not stop
// the others but fails the command.
func (c *InitCmd) installHooks(env *Env, root string, agents []hookproto.Agent) error {
	failed := false
	for _, a := range agents {
		for _, hook := range []install.Hook{install.StopHook, install.StartHook} {
			if _, ok := install.SpecForHook(a, hook); !ok {
				continue
			}
			if !c.installHook(env, root, a, hook) {
				failed = true
			}
		}
	}
	if failed {
		return exitPrinted(ExitFailure)
	}
	return nil
}

// hookNames name the hooks in messages.
var hookNames = map[install.Hook]string{install.StopHook: "stop hook", install.StartHook: "session-start hook"}

// installHook installs one hook of agent and reports it; false when it
// failed (the error is printed).
func (c *InitCmd) installHook(env *Env, root string, a hookproto.Agent, hook install.Hook) bool {
	opts := install.Options{TimeoutSeconds: c.HookTimeout, Hook: hook}
	if a == hookproto.Claude {
		opts.Path = c.SettingsFile
	}
	name := hookNames[hook]
	res, err := install.Install(root, a, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agent-gauntlet: %s %s: %v\n", a.DisplayName(), name, err)
		return false
	}
	where := shownPath(root, res.Path)
	if res.Skipped != "" {
		fmt.Fprintf(env.Stdout, "%s %s not installed: %s\n", a.DisplayName(), name, res.Skipped)
		return true
	}
	if !res.Added {
		fmt.Fprintf(env.Stdout, "%s %s already installed in %s\n", a.DisplayName(), name, where)
		if hook == install.StopHook {
			if note := noTimeoutNote(a, res.Command); note != "" {
				fmt.Fprintf(env.Stdout, "  Note: %s\n", note)
			}
		}
		return true
	}
	fmt.Fprintf(env.Stdout, "Installed the %s %s in %s\n", a.DisplayName(), name, where)
	if spec, _ := install.SpecFor(a); spec.Note != "" && hook == install.StopHook {
		fmt.Fprintf(env.Stdout, "  Note: %s\n", spec.Note)
	}
	return true
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
