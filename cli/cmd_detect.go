package cli

// DetectCmd is `agent-gauntlet detect`.
type DetectCmd struct{}

// Run executes the command.
func (c *DetectCmd) Run(env *Env) error { return errNotImplemented("detect") }
