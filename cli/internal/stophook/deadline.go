package stophook

import (
	"fmt"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// limit is the hook's own deadline and where it comes from.
type limit struct {
	// deadline bounds the hook from its start.
	deadline time.Duration
	// assumed is set when the command named no timeout (no --timeout): the
	// deadline then follows the client's default hook timeout, timeout.
	assumed bool
	timeout time.Duration
}

// AssumedTimeout is the hook timeout assumed for agent's client when the
// hook command names none: the client's default (hookproto.Dialects), at
// most DefaultAgentTimeout, the timeout the TypeScript tool wrote into the
// entries it installed without --timeout.
func AssumedTimeout(agent hookproto.Agent) time.Duration {
	d, ok := hookproto.Lookup(agent)
	if !ok {
		return DefaultAgentTimeout
	}
	return min(d.HookTimeout, DefaultAgentTimeout)
}

// limitFor is the deadline of a hook answering agent: Options.Deadline when
// set, else DeadlineFor the agent's timeout (Options.AgentTimeout, else the
// one AssumedTimeout says for the client, or Options.ClientTimeout).
func limitFor(o Options, agent hookproto.Agent) limit {
	switch {
	case o.Deadline > 0:
		return limit{deadline: o.Deadline}
	case o.AgentTimeout > 0:
		return limit{deadline: DeadlineFor(o.AgentTimeout), timeout: o.AgentTimeout}
	}
	t := AssumedTimeout(agent)
	if o.ClientTimeout > 0 {
		t = o.ClientTimeout
	}
	return limit{deadline: DeadlineFor(t), assumed: true, timeout: t}
}

// missed says that the gates outlived the deadline and, when the deadline
// followed the client's default, that they need a longer hook timeout and
// how to give them one.
func (l limit) missed(agent hookproto.Agent) string {
	msg := fmt.Sprintf("The gates did not finish within the stop hook's deadline of %s.", l.deadline)
	if !l.assumed {
		return msg
	}
	d, ok := hookproto.Lookup(agent)
	if !ok {
		d = hookproto.Dialects[0]
	}
	// The one fix that changes something: init leaves a hook it finds
	// as it is, whatever its flags.
	seconds := install.DefaultTimeoutSeconds
	return fmt.Sprintf("%s The hook command has no --timeout, so the deadline stays under %s's default hook timeout of %s; "+
		"the gates need a longer hook timeout: in the hook's entry in %s, set %q to %d and add --timeout %d to its command.",
		msg, d.Display, l.timeout, d.Settings.Path, d.Settings.Layout.TimeoutKey(), d.Settings.Timeout.Write(seconds), seconds)
}
