package cli

// ListCmd is `agent-gauntlet list`.
type ListCmd struct{}

// Run executes the command.
func (c *ListCmd) Run(env *Env) error { return errNotImplemented("list") }
