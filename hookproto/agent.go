package hookproto

import (
	"fmt"
	"strings"
)

// Agent names a coding agent whose stop hook the gauntlet answers.
type Agent string

// The agents, by the name used on the command line (`--agent`).
const (
	Claude  Agent = "claude"
	Codex   Agent = "codex"
	Gemini  Agent = "gemini"
	Cursor  Agent = "cursor"
	Copilot Agent = "copilot"
)

// Agents lists every agent, Claude Code (the default dialect) first.
var Agents = []Agent{Claude, Codex, Gemini, Cursor, Copilot}

// DisplayName is the agent's product name, for messages.
func (a Agent) DisplayName() string {
	switch a {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	case Gemini:
		return "Gemini CLI"
	case Cursor:
		return "Cursor"
	case Copilot:
		return "Copilot CLI"
	}
	return string(a)
}

// Valid reports whether a is one of Agents.
func (a Agent) Valid() bool {
	for _, k := range Agents {
		if a == k {
			return true
		}
	}
	return false
}

// ParseAgent returns the agent named s (case-insensitive, surrounding space
// ignored); the empty string yields "" (detect from the input).
func ParseAgent(s string) (Agent, error) {
	a := Agent(strings.ToLower(strings.TrimSpace(s)))
	if a == "" || a.Valid() {
		return a, nil
	}
	return "", fmt.Errorf("unknown agent %q (want one of %s)", s, AgentList())
}

// AgentList is the agents' names joined by commas, for help and errors.
func AgentList() string {
	names := make([]string, len(Agents))
	for i, a := range Agents {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
