package cli

import (
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/project"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// ValidateCmd is `agent-gauntlet validate`.
type ValidateCmd struct{}

// Run loads the whole configuration, prints its warnings on stderr and
// either `All config files are valid.` (exit 0) or every problem, one line
// each, on stderr (exit 2).
func (c *ValidateCmd) Run(env *Env) error {
	cfg, err := project.Load(env.Cwd)
	if err != nil {
		return configLoadError(env, err)
	}
	project.PrintWarnings(env.Stderr, cfg.Warnings)
	fmt.Fprintln(env.Stdout, "All config files are valid.")
	return nil
}

// configLoadError reports an error of config.Load or config.LoadProjectFile
// and returns what ends the command: configuration problems are printed on
// stderr, one per line after the warnings, and exit 2; a missing config.yml
// is a usage error (exit 2) naming its absolute path; anything else (an
// unreadable file) is returned as is (exit 1).
func configLoadError(env *Env, err error) error {
	var errs *config.Errors
	if errors.As(err, &errs) {
		project.PrintProblems(env.Stderr, errs)
		return silentExit(ExitUsage)
	}
	if errors.Is(err, config.ErrNotFound) {
		return usageError(err)
	}
	return err
}
