package cli

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run executes the command.
func (c *CleanCmd) Run(env *Env) error { return errNotImplemented("clean") }
