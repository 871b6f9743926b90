// Package scripttest holds what every testscript suite of the cli module
// shares: the hermetic environment under $WORK.
package scripttest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// gitconfig is the global git configuration of every script.
const gitconfig = "[init]\n\tdefaultBranch = main\n[user]\n\tname = Gauntlet Test\n\temail = test@example.com\n[commit]\n\tgpgsign = false\n"

// Hermetic makes a script's environment independent of the machine: HOME, the
// XDG directories and the git identity and configuration under $WORK,
// $WORK/bin first on PATH for stand-in executables, and the CI and
// agent-gauntlet variables that change behaviour cleared.
func Hermetic(e *testscript.Env) error {
	home := filepath.Join(e.WorkDir, "home")
	bin := filepath.Join(e.WorkDir, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("hermetic setup: %w", err)
		}
	}
	e.Setenv("HOME", home)
	e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	e.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	e.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
	e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	e.Setenv("GIT_AUTHOR_NAME", "Gauntlet Test")
	e.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	e.Setenv("GIT_COMMITTER_NAME", "Gauntlet Test")
	e.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	e.Setenv("GIT_AUTHOR_DATE", "")
	e.Setenv("CI", "")
	e.Setenv("GITHUB_ACTIONS", "")
	e.Setenv("GITHUB_BASE_REF", "")
	e.Setenv("GITHUB_SHA", "")
	e.Setenv("GAUNTLET_STOP_HOOK_ENABLED", "")
	e.Setenv("GAUNTLET_STOP_HOOK_INTERVAL_MINUTES", "")
	e.Setenv("GAUNTLET_STOP_HOOK_ACTIVE", "")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return fmt.Errorf("hermetic setup: %w", err)
	}
	return nil
}
