package cli

import (
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// ValidateCmd is `agent-gauntlet validate`.
type ValidateCmd struct{}

// Run loads the whole configuration, prints its warnings on stderr and
// either `All config files are valid.`, whether it is the trusted
// configuration and where each review's prompt comes from (exit 0), or
// every problem, one line each, on stderr (exit 2).
func (c *ValidateCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if err != nil {
		noteDeletedConfig(env, err)
		return configError(env.Stderr, err)
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	fmt.Fprintln(env.Stdout, "All config files are valid.")
	_, line := trustLine(env.Ctx, cfg.Root)
	fmt.Fprintln(env.Stdout, line)
	if len(cfg.Reviews) > 0 {
		fmt.Fprintln(env.Stdout, "Review prompts:")
		for _, name := range listSortedNames(cfg.Reviews) {
			fmt.Fprintf(env.Stdout, "  %s: %s\n", name, promptSource(cfg.Reviews[name]))
		}
	}
	return nil
}
