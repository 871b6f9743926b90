package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this test binary as the agent-gauntlet command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// The same process as cmd/agent-gauntlet, signal handling included,
		// so that scripts can interrupt a run and check what it leaves behind.
		// Scripts set the version the result cache is keyed by, as -ldflags
		// sets it in a release build.
		"agent-gauntlet": func() {
			if v := os.Getenv(TestVersionEnv); v != "" {
				Version = v
			}
			os.Exit(RunProcess(os.Args[1:]))
		},
	})
}

// TestVersionEnv names the variable a script sets the program version with.
const TestVersionEnv = "GAUNTLET_TEST_VERSION"

// TestScript runs the behaviour scenarios in ../testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, ScriptParams(filepath.Join("..", "testdata", "script")))
}
