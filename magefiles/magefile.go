//go:build mage

// The build targets of agent-gauntlet. Run them from the repository root as
// `go tool mage <target>`; the logic lives in the tested targets package.
package main

import (
	//mage:import
	_ "github.com/agent-gauntlet/agent-gauntlet/magefiles/targets"
)
