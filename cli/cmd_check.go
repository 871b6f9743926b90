package cli

import "github.com/agent-gauntlet/agent-gauntlet/runner"

// CheckCmd is `agent-gauntlet check`.
type CheckCmd struct {
	gateFlags `embed:""`
}

// Run executes the applicable check gates only.
func (c *CheckCmd) Run(env *Env) error {
	return runGauntlet(env, runner.KindsChecks, "check", c.gateFlags)
}
