package config

import (
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
)

// FindRoot returns the nearest directory at or above start that holds
// .gauntlet/config.yml. The search stops after the first directory holding
// a .git entry (the git top level), so it never leaves the repository; it
// runs no git command (only stats: it sits on the stop hook's hot path).
// Any entry named config.yml marks the root, so that one which is no
// regular file (a directory, a FIFO, a dangling link) is reported by Load
// rather than silently skipped.
func FindRoot(start string) (root string, ok bool) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, Dir, ProjectFile)); err == nil {
			return dir, true
		}
		if _, err := os.Lstat(filepath.Join(dir, gitdir.Entry)); err == nil {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
