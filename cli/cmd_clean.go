package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run archives the logs and the execution state of the project a stop
// hook whose session is in the working directory judges (stophook.Judge)
// into <log_dir>/previous/, log_dir being the configuration in force
// there (the trusted one, whose logs and retry budget the stop hook
// keeps, never a work tree's that moved it), under the run lock
// (runner.Clean). It says which project and log directory it cleaned.
// Without a project it refuses (exit 2) and touches nothing: no record
// there says which files the gauntlet wrote. A configuration in force
// that does not load (or a trusted one without gates) exits 2 and cleans
// nothing; a run in progress (lock held) exits 1.
func (c *CleanCmd) Run(env *Env) error {
	j, err := stophook.Judge(env.Ctx, env.Cwd, env.Getenv, time.Now())
	if err != nil {
		return err
	}
	if j.Root == "" {
		return usageError(fmt.Errorf("clean: %w: nothing was moved or deleted", &config.NotFoundError{Dir: env.Cwd}))
	}
	cfg, err := judgedConfig(env, j)
	if err != nil {
		return err
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	if st := j.Trust; st != nil && !st.Trusted && j.Source != trust.SourceNone {
		// The log directory is the trusted configuration's: say how the
		// work tree's differs (deleted, log_dir moved, ...).
		fmt.Fprintf(env.Stderr, "Trust: %s (project %s)\n", st.Describe(), runner.SafeText(j.Root))
	}
	res, err := runner.Clean(env.Ctx, runner.CleanOptions{Config: cfg, Dir: env.Cwd, Getenv: env.Getenv})
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	var problems *config.Errors
	if errors.As(err, &problems) {
		return configError(env.Stderr, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Project: %s (logs in %s)\n", runner.SafeText(j.Root), runner.SafeText(res.LogDir))
	if res.Archived {
		fmt.Fprintln(env.Stdout, "Logs archived successfully.")
	} else {
		fmt.Fprintln(env.Stdout, "Nothing to clean.")
	}
	return nil
}

// judgedConfig is the whole configuration in force in the project j
// judges; when it does not open, the error (exit 2) says which project's
// and which configuration, once printed.
func judgedConfig(env *Env, j stophook.Judgment) (*config.Config, error) {
	err := j.Err
	var cfg *config.Config
	if err == nil {
		cfg, err = j.Project.All(env.Ctx)
	}
	if err == nil {
		return cfg, nil
	}
	noteDeletedConfig(env, err)
	var problems *config.Errors
	if errors.As(err, &problems) {
		fmt.Fprintf(env.Stderr, "agent-gauntlet: the configuration the stop hook runs in %s (%s) does not load:\n",
			runner.SafeText(j.Root), sourceText(j.Source))
	}
	return nil, configError(env.Stderr, err)
}

// sourceText says where a configuration in force comes from.
func sourceText(s trust.Source) string {
	switch s {
	case trust.SourceRecord:
		return "the trusted record"
	case trust.SourceHEAD:
		return "the one committed at HEAD"
	}
	return "the work tree's, which nobody trusted"
}
