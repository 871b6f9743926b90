package cli

import (
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run archives the logs and the execution state of the project found from
// the working directory into <log_dir>/previous/ (gauntlet_logs in the
// working directory when there is no project), under the run lock
// (runner.Clean). A configuration that does not load exits 2; a run in
// progress (lock held) exits 1.
func (c *CleanCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if err != nil && !errors.Is(err, config.ErrNotFound) {
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
