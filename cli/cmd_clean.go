package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run archives the logs and the execution state of the project found from
// the working directory into <log_dir>/previous/ (gauntlet_logs in the
// working directory when there is no project), under the run lock
// (runner.Clean). A work tree without .gauntlet/config.yml is still the
// project of its trusted configuration (trustedProject): clean then acts
// on that one, whose logs and retry budget the stop hook keeps. A
// configuration that does not load exits 2; a run in progress (lock held)
// exits 1.
func (c *CleanCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if errors.Is(err, config.ErrNotFound) {
		noteDeletedConfig(env, err)
		cfg, err = trustedProject(env.Ctx, env.Cwd), nil
	}
	if err != nil {
		return configError(env.Stderr, err)
	}
	if cfg != nil {
		config.WriteWarnings(env.Stderr, cfg.Warnings)
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
	if res.Archived {
		fmt.Fprintln(env.Stdout, "Logs archived successfully.")
	} else {
		fmt.Fprintln(env.Stdout, "Nothing to clean.")
	}
	return nil
}

// trustedProject is the configuration the stop hook runs for the project
// that dir is in when the work tree holds none (deleted, or never
// committed below a trusted record): the trusted record's, else HEAD's
// (trust.FindRoot, trust.Inspect); nil when there is no such project or
// that configuration does not load (clean then falls back to gauntlet_logs
// in dir).
func trustedProject(ctx context.Context, dir string) *config.Config {
	root, ok, err := trust.FindRoot(ctx, dir)
	if err != nil || !ok {
		return nil
	}
	_, t, err := trust.Inspect(ctx, root)
	if err != nil {
		return nil
	}
	p, err := config.OpenFiles(root, t.Files)
	if err != nil {
		return nil
	}
	cfg, err := p.All(ctx)
	if err != nil {
		return nil
	}
	return cfg
}
