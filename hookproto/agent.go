package hookproto

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
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
	Qwen    Agent = "qwen"
	Droid   Agent = "droid"
)

// Dialect is one agent's row: its names, how its hook input is recognised
// and decoded, how the answers are encoded, and where and how a project
// configures its hooks. Dialects holds one row per agent; everything that
// differs between agents is read from it (the hook, the installer, the
// doctor), so an agent is added by adding its row.
type Dialect struct {
	// Agent is the name on the command line.
	Agent Agent
	// Display is the product name, for messages.
	Display string
	// Env, when not "", is a variable the client sets in its hooks'
	// environment and no other client does: a hook started with it set is
	// this client's, whatever the input's shape (Qwen Code and Factory
	// Droid send Claude Code's shape).
	Env string
	// ProjectEnv, when not "", is the variable the client sets in its
	// hooks' environment to the session's project directory: the project
	// the session was started in, which a `cd` of the agent's shell does
	// not move (see SessionProject).
	ProjectEnv string
	// DirField names the input's field Input.Dir comes from, for messages.
	DirField string
	// shape reports whether an input's distinguishing keys are this
	// client's; nil for a client recognised by Env only.
	shape func(keys) bool
	// decode reads an input known to be one JSON object.
	decode func([]byte) Input
	// encode is the stop answer.
	encode func(Response) any
	// encodeStart is the session-start answer adding context; nil when the
	// client has no session-start hook the gauntlet installs.
	encodeStart func(context string) any
	// HookTimeout is how long the client lets a hook run when its entry
	// names no timeout.
	HookTimeout time.Duration
	// TimerLimit is the longest hook timeout the client's timer holds, 0
	// when unbounded: Node.js fires a timer set beyond 2^31-1 ms after
	// 1 ms, so a Node client given a longer timeout kills the hook at once
	// (checked with Gemini CLI 0.61 and Qwen Code 0.24).
	TimerLimit time.Duration
	// Dedup: the client runs a hook command once per event even when
	// several entries (in one file or several) name it.
	Dedup bool
	// Settings is where a project configures the client's hooks.
	Settings Settings
}

// Layout is the shape of one hook entry in a client's settings file.
type Layout int

// The layouts of hook entries.
const (
	// LayoutNested is Claude Code's {"hooks":[{"type":"command",
	// "command","timeout"}]}, shared by Codex, Gemini CLI, Qwen Code and
	// Factory Droid.
	LayoutNested Layout = iota
	// LayoutCursor is Cursor's {"command","timeout"} (plus "loop_limit"
	// for the stop hook).
	LayoutCursor
	// LayoutCopilot is Copilot CLI's {"type":"command","bash",
	// "powershell","timeoutSec"}.
	LayoutCopilot
)

// TimeoutKey is the field of an entry of this layout that holds its
// timeout.
func (l Layout) TimeoutKey() string {
	if l == LayoutCopilot {
		return "timeoutSec"
	}
	return "timeout"
}

// TimeoutUnit is how a client reads the number in a hook entry's timeout.
type TimeoutUnit int

// The timeout units.
const (
	// Seconds: the number is seconds.
	Seconds TimeoutUnit = iota
	// Milliseconds: the number is milliseconds (Gemini CLI).
	Milliseconds
	// SecondsBelow1000: seconds below 1000, milliseconds from 1000 on
	// (Qwen Code keeps the old millisecond meaning of large values).
	SecondsBelow1000
)

// Write is the number written for a timeout of the given seconds.
func (u TimeoutUnit) Write(seconds int) int {
	switch {
	case u == Milliseconds, u == SecondsBelow1000 && seconds >= 1000:
		return seconds * 1000
	}
	return seconds
}

// Read is the timeout a client reads from the number v.
func (u TimeoutUnit) Read(v float64) time.Duration {
	if u == Milliseconds || u == SecondsBelow1000 && v >= 1000 {
		return time.Duration(v * float64(time.Millisecond))
	}
	return time.Duration(v * float64(time.Second))
}

// Syntax is how a client reads the JSON of its settings files.
type Syntax int

// The syntaxes of settings files.
const (
	// JSON: strict JSON.
	JSON Syntax = iota
	// JSONWithBOM: JSON, after a UTF-8 byte order mark (Claude Code).
	JSONWithBOM
	// JSONC: JSON with // and /* */ comments, after a byte order mark
	// (Gemini CLI and Qwen Code strip comments before parsing; Copilot
	// CLI writes a // header into its config.json).
	JSONC
)

// Settings is where and how a project configures one client's hooks.
type Settings struct {
	// Path is the settings file, slash-separated, relative to the project
	// root.
	Path string
	// Layout is the shape of its hook entries.
	Layout Layout
	// Stop and Start are the event keys of the stop and the session-start
	// hooks; Start is "" when the client has no session-start hook the
	// gauntlet installs.
	Stop, Start string
	// StopAliases are other event keys the client runs as its stop (Copilot
	// CLI runs "Stop", the PascalCase form it shares with VS Code).
	StopAliases []string
	// TopLevel: the events are keys of the document itself, not of its
	// "hooks" object (Factory Droid's hooks.json).
	TopLevel bool
	// Versioned files carry a top-level "version": 1.
	Versioned bool
	// Named entries carry "name" (Gemini CLI lists hooks by name).
	Named bool
	// Timeout is how the client reads an entry's timeout.
	Timeout TimeoutUnit
	// Syntax is how the client reads its settings files.
	Syntax Syntax
	// StrictTimeout: the client ignores an entry whose timeout is not a
	// positive number ("600", 0, -1), with a warning nobody sees (Claude
	// Code 2.1.328).
	StrictTimeout bool
	// Note is said after installing, "" when there is nothing to say.
	Note string
}

// NodeTimerLimit is the longest delay a Node.js timer holds (2^31-1 ms).
const NodeTimerLimit = (1<<31 - 1) * time.Millisecond

// Dialects is the table of agents, Claude Code (the default dialect)
// first. Detection tries the rows in this order.
var Dialects = []Dialect{
	{
		Agent: Claude, Display: "Claude Code", ProjectEnv: "CLAUDE_PROJECT_DIR", DirField: "cwd",
		decode: decodeAs[ClaudeInput], encode: encodeClaude, encodeStart: encodeClaudeStart,
		HookTimeout: 600 * time.Second, Dedup: true, TimerLimit: NodeTimerLimit,
		Settings: Settings{Path: ".claude/settings.json", Stop: "Stop", Start: "SessionStart", Syntax: JSONWithBOM,
			StrictTimeout: true},
	},
	{
		Agent: Codex, Display: "Codex", DirField: "cwd",
		shape:  func(k keys) bool { return k.TurnID != nil },
		decode: decodeAs[CodexInput], encode: encodeCodex,
		HookTimeout: 600 * time.Second,
		Settings: Settings{Path: ".codex/hooks.json", Stop: "Stop",
			Note: "Codex asks you to review and trust new hooks in its /hooks screen before it runs them, " +
				"and loads .codex/hooks.json only in a trusted project: accept its trust prompt, run `codex exec --trust` once, " +
				`or add [projects."<project path>"] trust_level = "trusted" to ~/.codex/config.toml.`},
	},
	{
		Agent: Gemini, Display: "Gemini CLI", ProjectEnv: "GEMINI_PROJECT_DIR", DirField: "cwd",
		shape:  func(k keys) bool { return k.event() == "AfterAgent" || k.PromptResponse != nil },
		decode: decodeAs[GeminiInput], encode: encodeGemini,
		HookTimeout: 60 * time.Second, TimerLimit: NodeTimerLimit,
		Settings: Settings{Path: ".gemini/settings.json", Stop: "AfterAgent", Named: true, Timeout: Milliseconds,
			Syntax: JSONC},
	},
	{
		Agent: Cursor, Display: "Cursor", DirField: "workspace_roots",
		shape: func(k keys) bool {
			return k.ConversationID != nil || k.WorkspaceRoots != nil || k.LoopCount != nil || k.event() == "stop"
		},
		decode: decodeAs[CursorInput], encode: encodeCursor, encodeStart: encodeCursorStart,
		HookTimeout: 60 * time.Second,
		Settings: Settings{Path: ".cursor/hooks.json", Layout: LayoutCursor, Stop: "stop", Start: "sessionStart",
			Versioned: true},
	},
	{
		Agent: Copilot, Display: "Copilot CLI", DirField: "cwd",
		shape: func(k keys) bool {
			return k.event() == "agentStop" || k.HookEventName == nil && (k.SessionIDCamel != nil || k.StopReason != nil) ||
				k.StopReasonSnake != nil // a PascalCase "Stop" hook of .github/hooks
		},
		decode: decodeAs[CopilotInput], encode: encodeCopilot, encodeStart: encodeCopilotStart,
		HookTimeout: 30 * time.Second, TimerLimit: NodeTimerLimit,
		Settings: Settings{Path: ".github/hooks/agent-gauntlet.json", Layout: LayoutCopilot, Stop: "agentStop",
			StopAliases: []string{"Stop"},
			Start:       "sessionStart", Versioned: true,
			Note: "Copilot CLI runs a repository's hooks only in a folder you trust: accept its trust prompt, " +
				"or run it with --trust-folder; it also runs the hooks of .claude/settings.json, so install one of the two."},
	},
	{
		Agent: Qwen, Display: "Qwen Code", Env: "QWEN_PROJECT_DIR", ProjectEnv: "QWEN_PROJECT_DIR", DirField: "cwd",
		decode: claudeShaped(Qwen), encode: encodeClaude, encodeStart: encodeClaudeStart,
		HookTimeout: 60 * time.Second, Dedup: true, TimerLimit: NodeTimerLimit,
		Settings: Settings{Path: ".qwen/settings.json", Stop: "Stop", Start: "SessionStart",
			Timeout: SecondsBelow1000, Syntax: JSONC},
	},
	{
		Agent: Droid, Display: "Factory Droid", Env: "FACTORY_PROJECT_DIR", ProjectEnv: "FACTORY_PROJECT_DIR", DirField: "cwd",
		decode: claudeShaped(Droid), encode: encodeClaude, encodeStart: encodeClaudeStart,
		HookTimeout: 60 * time.Second,
		Settings:    Settings{Path: ".factory/hooks.json", Stop: "Stop", Start: "SessionStart", TopLevel: true},
	},
}

// Agents lists every agent, in Dialects order.
var Agents = func() []Agent {
	out := make([]Agent, len(Dialects))
	for i, d := range Dialects {
		out[i] = d.Agent
	}
	return out
}()

// Lookup returns a's row; false for an unknown agent.
func Lookup(a Agent) (Dialect, bool) {
	for _, d := range Dialects {
		if d.Agent == a {
			return d, true
		}
	}
	return Dialect{}, false
}

// dialect is a's row, Claude Code's for an unknown or empty agent.
func dialect(a Agent) Dialect {
	if d, ok := Lookup(a); ok {
		return d
	}
	return Dialects[0]
}

// DisplayName is the agent's product name, for messages.
func (a Agent) DisplayName() string {
	if d, ok := Lookup(a); ok {
		return d.Display
	}
	return string(a)
}

// Valid reports whether a is one of Agents.
func (a Agent) Valid() bool {
	_, ok := Lookup(a)
	return ok
}

// HasStart reports whether the agent has a session-start hook that the
// gauntlet answers and installs.
func (a Agent) HasStart() bool {
	d, ok := Lookup(a)
	return ok && d.encodeStart != nil && d.Settings.Start != ""
}

// FromEnv names the agent whose hook environment getenv shows (a row's Env
// set and not empty), "" when none does.
func FromEnv(getenv func(string) string) Agent {
	if getenv == nil {
		return ""
	}
	for _, d := range Dialects {
		if d.Env != "" && getenv(d.Env) != "" {
			return d.Agent
		}
	}
	return ""
}

// Project is where a hook's client says the session's project is.
type Project struct {
	// Dir is the directory, "" when the client names none.
	Dir string
	// From names where Dir came from, for messages: the variable
	// ("CLAUDE_PROJECT_DIR") or the input's field ("cwd",
	// "workspace_roots"); "" with Dir.
	From string
	// Env is true when Dir is the client's project variable.
	Env bool
}

// SessionProject is the directory of the session's project as the client
// of in says it: the variable of its row (ProjectEnv) when getenv sets it
// to an absolute path, which the agent's shell cannot move with `cd`; else
// the directory the input names (Cursor's workspace root, the others'
// cwd), made absolute against cwd when relative. Dir is "" when neither
// names one.
func SessionProject(in Input, getenv func(string) string, cwd string) Project {
	d := dialect(in.Agent)
	if d.ProjectEnv != "" && getenv != nil {
		if dir := getenv(d.ProjectEnv); dir != "" && filepath.IsAbs(dir) {
			return Project{Dir: filepath.Clean(dir), From: d.ProjectEnv, Env: true}
		}
	}
	if in.Dir == "" {
		return Project{}
	}
	dir := in.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	return Project{Dir: filepath.Clean(dir), From: d.DirField}
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
