// Command agent-gauntlet is a quality-gate runner for AI coding agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/cli"
)

func main() {
	// A closed stdout (an agent that went away, `| head`) must give write
	// errors, not kill the process before it releases its lock. Notify,
	// unlike Ignore, is not inherited: checks see SIGPIPE as usual. Windows
	// has no SIGPIPE (a write to a closed pipe fails): the call is a no-op.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
