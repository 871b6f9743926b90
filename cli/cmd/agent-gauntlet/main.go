// Command agent-gauntlet is a quality-gate runner for AI coding agents.
//
// GOMAXPROCS is read once, at start: the program does not need it read
// again when a container's CPU limit changes, and every stop hook is spared
// the goroutine that would (BENCHMARKS.md).
//
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/cli"
)

func main() {
	os.Exit(cli.RunProcess(os.Args[1:]))
}
