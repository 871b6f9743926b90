package cli

// StopHookCmd is `agent-gauntlet stop-hook`.
type StopHookCmd struct{}

// Run executes the command.
func (c *StopHookCmd) Run(env *Env) error { return errNotImplemented("stop-hook") }
