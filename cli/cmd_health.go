package cli

// HealthCmd is `agent-gauntlet health`.
type HealthCmd struct{}

// Run executes the command.
func (c *HealthCmd) Run(env *Env) error { return errNotImplemented("health") }
