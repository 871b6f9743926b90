package cli

// ReviewCmd is `agent-gauntlet review`.
type ReviewCmd struct{}

// Run executes the command.
func (c *ReviewCmd) Run(env *Env) error { return errNotImplemented("review") }
