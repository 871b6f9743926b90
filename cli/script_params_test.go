package cli

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptParams are the testscript parameters shared by every script suite:
// a hermetic HOME, XDG directories and git identity under $WORK, and $WORK/bin
// first on PATH for stand-in executables.
func ScriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("GAUNTLET_UPDATE_GOLDEN") != "",
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			bin := filepath.Join(e.WorkDir, "bin")
			for _, d := range []string{home, bin} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			e.Setenv("HOME", home)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
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
			return os.WriteFile(filepath.Join(home, ".gitconfig"),
				[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Gauntlet Test\n\temail = test@example.com\n[commit]\n\tgpgsign = false\n"), 0o644)
		},
	}
}
