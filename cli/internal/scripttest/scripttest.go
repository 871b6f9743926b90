// Package scripttest holds what every testscript suite of the cli module
// shares: the hermetic environment under $WORK.
package scripttest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// Hermetic makes a script's environment independent of the machine: the
// testenv environment with its home in $WORK/home, and $WORK/bin first on
// PATH for stand-in executables.
func Hermetic(e *testscript.Env) error {
	env, err := testenv.New(filepath.Join(e.WorkDir, "home"))
	if err != nil {
		return err
	}
	bin := filepath.Join(e.WorkDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("hermetic setup: %w", err)
	}
	env.Apply(e.Setenv)
	e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
	return nil
}
