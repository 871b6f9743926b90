package cli

// HooksCmd is `agent-gauntlet hooks`.
type HooksCmd struct{}

// Run executes the command.
func (c *HooksCmd) Run(env *Env) error { return errNotImplemented("hooks") }
