package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this test binary as the agent-gauntlet command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agent-gauntlet": func() {
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScript runs the behaviour scenarios in ../testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, ScriptParams(filepath.Join("..", "testdata", "script")))
}
