package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/project"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run archives the logs and the execution state of the project found from
// the working directory into <log_dir>/previous/ (gauntlet_logs in the
// working directory when there is no project), under the run lock. A run in
// progress (lock held) ends it with exit 1.
func (c *CleanCmd) Run(env *Env) (err error) {
	dir, err := project.LogDir(env.Cwd)
	if err != nil {
		return configLoadError(env, err)
	}
	if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
		fmt.Fprintln(env.Stdout, "Nothing to clean.")
		return nil
	}
	l, err := lock.Acquire(dir)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := l.Release(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	if l.Warning != "" {
		fmt.Fprintf(env.Stderr, "warning: %s\n", l.Warning)
	}
	cleaned, err := logdir.Clean(dir, true)
	if err != nil {
		return fmt.Errorf("clean %s: %w", dir, err)
	}
	if cleaned {
		fmt.Fprintln(env.Stdout, "Logs archived successfully.")
	} else {
		fmt.Fprintln(env.Stdout, "Nothing to clean.")
	}
	return nil
}
