package cli

import (
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Lines of the health report.
const (
	healthConfigTitle = "Config validation:"
	healthConfigValid = "  All config files are valid."
	healthBadConfig   = "  (Config invalid, checking all supported agents)"
)

// HealthCmd is `agent-gauntlet health`.
type HealthCmd struct{}

// Run validates the configuration and reports every review CLI on stdout:
// `Config validation:` with the verdict (or every problem), then
// `CLI Tool Health Check:` with one line per CLI. It exits 0 when the
// configuration is valid (or absent) and every review gate has a healthy
// CLI, 1 when some review gate has none, 2 when the configuration is
// invalid.
func (c *HealthCmd) Run(env *Env) error {
	fmt.Fprintln(env.Stdout, healthConfigTitle)
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	root := env.Cwd
	var configErr error
	var errs *config.Errors
	switch {
	case err == nil:
		root = cfg.Root
		config.WriteWarnings(env.Stdout, cfg.Warnings)
		fmt.Fprintln(env.Stdout, healthConfigValid)
	case errors.As(err, &errs):
		configErr = configError(env.Stdout, err)
		fmt.Fprintln(env.Stdout, healthBadConfig)
	case errors.Is(err, config.ErrNotFound):
		fmt.Fprintf(env.Stdout, "  (%v, checking all supported agents)\n", config.ErrNotFound)
	default:
		return configError(env.Stdout, err)
	}
	fmt.Fprintln(env.Stdout)
	if err := runner.Health(env.Ctx, root, cfg, env.Stdout); err != nil && configErr == nil {
		return err
	}
	return configErr
}
