package cli

import (
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// CacheCmd is `agent-gauntlet cache`.
type CacheCmd struct {
	Clear CacheClearCmd `cmd:"" help:"Remove every result the cache holds, in every worktree of the repository."`
	Info  CacheInfoCmd  `cmd:"" help:"Show where the result cache of the repository is and how much it holds."`
}

// CacheClearCmd is `agent-gauntlet cache clear`.
type CacheClearCmd struct{}

// Run empties the result cache of the repository holding the working
// directory.
func (c *CacheClearCmd) Run(env *Env) error {
	rc, err := runner.OpenResultCache(env.Ctx, env.Cwd)
	if err != nil {
		return err
	}
	n, err := rc.Clear()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Removed %d cached result(s) from %s.\n", n, runner.SafeText(rc.Dir))
	return nil
}

// CacheInfoCmd is `agent-gauntlet cache info`.
type CacheInfoCmd struct{}

// Run prints the result cache's directory and size.
func (c *CacheInfoCmd) Run(env *Env) error {
	rc, err := runner.OpenResultCache(env.Ctx, env.Cwd)
	if err != nil {
		return err
	}
	n, size, err := rc.Stats()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Result cache: %s\nResults: %d (%.1f KiB)\n", runner.SafeText(rc.Dir), n, float64(size)/1024)
	return nil
}
