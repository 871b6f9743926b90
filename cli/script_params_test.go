package cli

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptParams are the testscript parameters of the behaviour suite: the
// hermetic environment of scripttest.Hermetic (HOME, XDG directories, git
// identity under $WORK, $WORK/bin first on PATH) and the custom commands.
func ScriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("GAUNTLET_UPDATE_GOLDEN") != "",
		Cmds:                scriptCmds,
		Setup:               scripttest.Hermetic,
	}
}
