package cli

// CheckCmd is `agent-gauntlet check`.
type CheckCmd struct{}

// Run executes the command.
func (c *CheckCmd) Run(env *Env) error { return errNotImplemented("check") }
