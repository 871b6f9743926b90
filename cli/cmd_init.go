package cli

// InitCmd is `agent-gauntlet init`.
type InitCmd struct{}

// Run executes the command.
func (c *InitCmd) Run(env *Env) error { return errNotImplemented("init") }
