package cli

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this test binary as the agent-gauntlet command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agent-gauntlet": func() {
			// The same signal handling as cmd/agent-gauntlet, so that scripts
			// can interrupt a run and check what it leaves behind.
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			ctx, stop := NotifyContext(context.Background())
			code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestScript runs the behaviour scenarios in ../testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, ScriptParams(filepath.Join("..", "testdata", "script")))
}
