package cli

// RunCmd is `agent-gauntlet run`.
type RunCmd struct{}

// Run executes the command.
func (c *RunCmd) Run(env *Env) error { return errNotImplemented("run") }
