// Command agent-gauntlet is a quality-gate runner for AI coding agents.
package main

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/cli"
)

func main() {
	os.Exit(cli.RunProcess(os.Args[1:]))
}
