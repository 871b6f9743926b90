package cli

// ValidateCmd is `agent-gauntlet validate`.
type ValidateCmd struct{}

// Run executes the command.
func (c *ValidateCmd) Run(env *Env) error { return errNotImplemented("validate") }
