package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// DetectCmd is `agent-gauntlet detect`.
type DetectCmd struct {
	scopeFlags `embed:""`
	All        bool `short:"a" name:"all" help:"List every entry point and gate as if every file had changed, expanding dir/* wildcards to the existing sub-directories."`
}

// Run prints the changed files and the gates a run would execute, without
// taking the lock, writing logs or running anything.
func (c *DetectCmd) Run(env *Env, ctx context.Context) error {
	warnUntrusted(env)
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if err != nil {
		return configError(env.Stderr, err)
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	d, err := runner.Detect(ctx, cfg, runner.DetectOptions{
		BaseBranch: c.BaseBranch, Commit: c.Commit, Uncommitted: c.Uncommitted, All: c.All, Getenv: env.Getenv,
	})
	for _, w := range d.Warnings {
		fmt.Fprintln(env.Stderr, w)
	}
	if runner.IsUsageError(err) {
		return usageError(spelled(err))
	}
	if err != nil {
		return err
	}
	// One write for the whole listing, however many files changed.
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer w.Flush()
	q := runner.SafeText
	fmt.Fprintf(w, "Base branch: %s\n", q(d.BaseBranch))
	if !c.All {
		if len(d.Files) == 0 {
			fmt.Fprintln(w, runner.LineNoChanges)
			return nil
		}
		fmt.Fprintf(w, "Changed files (%d):\n", len(d.Files))
		for _, f := range d.Files {
			fmt.Fprintf(w, "  %s\n", q(f))
		}
	}
	for _, l := range d.NotApplicable {
		fmt.Fprintln(w, l)
	}
	if len(d.Jobs) == 0 {
		fmt.Fprintln(w, runner.LineNoApplicableGates)
		return nil
	}
	fmt.Fprintf(w, "Entry points (%d):\n", len(d.EntryPoints))
	for _, ep := range d.EntryPoints {
		fmt.Fprintf(w, "  %s\n", q(ep))
	}
	fmt.Fprintf(w, "Gates (%d):\n", len(d.Jobs))
	for _, j := range d.Jobs {
		var notes []string
		if j.WorkingDir != j.EntryPoint {
			notes = append(notes, "working directory: "+q(j.WorkingDir))
		}
		if j.Parallel {
			notes = append(notes, "parallel")
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "  %s (%s)\n", q(j.ID), strings.Join(notes, ", "))
		} else {
			fmt.Fprintf(w, "  %s\n", q(j.ID))
		}
	}
	return nil
}
