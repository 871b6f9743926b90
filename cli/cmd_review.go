package cli

import "github.com/agent-gauntlet/agent-gauntlet/runner"

// ReviewCmd is `agent-gauntlet review`.
type ReviewCmd struct {
	gateFlags `embed:""`
}

// Run executes the applicable review gates only.
func (c *ReviewCmd) Run(env *Env) error {
	return runGauntlet(env, runner.KindsReviews, "review", c.gateFlags)
}
