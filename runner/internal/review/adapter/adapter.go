// Package adapter runs the AI review CLIs (claude, codex, gemini, copilot,
// cursor-agent) non-interactively and read-only: argv from one table (Specs),
// the prompt and diff on stdin (never in argv), the project root as working
// directory, a process group of their own with the gate's timeout, and
// GAUNTLET_STOP_HOOK_ACTIVE=1 in the environment so that a child agent never
// re-enters the gauntlet's stop hook.
package adapter

import (
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Registry keys of the adapters, as written in cli_preference; the names
// themselves are defined once, in statecfg/config.
const (
	Claude  = config.AdapterClaude
	Codex   = config.AdapterCodex
	Gemini  = config.AdapterGemini
	Copilot = config.AdapterGitHubCopilot
	Cursor  = config.AdapterCursor
)

// RootArg in an argv template is replaced by the absolute project root.
const RootArg = "{root}"

// EnvStopHookActive is set to "1" in every child's environment; the stop hook
// answers stop_hook_active when it sees it.
const EnvStopHookActive = config.EnvStopHookActive

// Envelope tells how an adapter's stdout wraps the reviewer's text.
type Envelope int

// The stdout formats.
const (
	// EnvelopeNone: stdout is the reviewer's text.
	EnvelopeNone Envelope = iota
	// EnvelopeClaude: one JSON object with "result", "is_error",
	// "total_cost_usd", "num_turns" and "usage" (claude --output-format json).
	EnvelopeClaude
	// EnvelopeGemini: one JSON object with "response", "stats" and an
	// optional "error" (gemini --output-format json).
	EnvelopeGemini
)

// Spec is one review CLI: argv = Binary, Args (RootArg replaced), then
// ModelFlag and the model when a model is set, then Tail.
type Spec struct {
	// Name is the registry key.
	Name string
	// Binary is the program looked up in PATH.
	Binary string
	// Args come first.
	Args []string
	// ModelFlag precedes the review's model, when it has one.
	ModelFlag string
	// Tail comes last (positional arguments).
	Tail []string
	// Envelope is the stdout format.
	Envelope Envelope
}

// Specs is the one table of review CLIs and their exact arguments, in the
// order `health` lists them. Why each flag is there:
//
//   - claude: -p prints one answer and exits, reading the prompt from stdin;
//     --allowedTools Read,Glob,Grep is the read-only tool set (anything else
//     is denied in print mode); --max-turns bounds the agent loop;
//     --output-format json gives result text, cost and token usage;
//     --settings {"disableAllHooks":true} keeps the user's hooks (including
//     our stop hook) out of the child session.
//   - codex: exec is the non-interactive mode; --sandbox read-only lets
//     commands read but never write; -c approval_policy="never" never waits
//     for an approval nobody can give (the --ask-for-approval flag left
//     `exec`); --cd pins the workspace root; --color never keeps escape codes
//     out of the logs; "-" reads the instructions from stdin.
//   - gemini: a piped stdin (no -p) is headless mode; --approval-mode default
//     means every tool that needs a confirmation (shell, edit, write) is
//     refused in headless mode, leaving the read-only tools; --output-format
//     json gives "response" and "stats". --sandbox is not used: it needs a
//     container runtime and fails where none is installed.
//   - github-copilot: a piped prompt (no -p) runs one prompt and exits; -s
//     prints only the answer; --no-ask-user never waits for a human;
//     --allow-tool grants only reading shell commands and --deny-tool write
//     forbids file writes.
//   - cursor: -p (--print) is headless and reads the prompt from stdin;
//     --mode ask is the read-only mode; --output-format text prints the final
//     answer only; --trust accepts the workspace without a prompt;
//     --workspace pins the root.
var Specs = []Spec{
	{
		Name:   Claude,
		Binary: "claude",
		Args: []string{
			"-p",
			"--allowedTools", "Read,Glob,Grep",
			"--max-turns", "10",
			"--output-format", "json",
			"--settings", `{"disableAllHooks":true}`,
		},
		ModelFlag: "--model",
		Envelope:  EnvelopeClaude,
	},
	{
		Name:   Codex,
		Binary: "codex",
		Args: []string{
			"exec",
			"--sandbox", "read-only",
			"-c", `approval_policy="never"`,
			"--cd", RootArg,
			"--color", "never",
		},
		ModelFlag: "-m",
		Tail:      []string{"-"},
	},
	{
		Name:   Gemini,
		Binary: "gemini",
		Args: []string{
			"--approval-mode", "default",
			"--output-format", "json",
		},
		ModelFlag: "-m",
		Envelope:  EnvelopeGemini,
	},
	{
		Name:   Copilot,
		Binary: "copilot",
		Args: []string{
			"-s",
			"--no-ask-user",
			"--allow-tool", "shell(cat)",
			"--allow-tool", "shell(grep)",
			"--allow-tool", "shell(ls)",
			"--allow-tool", "shell(find)",
			"--allow-tool", "shell(head)",
			"--allow-tool", "shell(tail)",
			"--deny-tool", "write",
		},
		ModelFlag: "--model",
	},
	{
		Name:   Cursor,
		Binary: "agent",
		Args: []string{
			"-p",
			"--output-format", "text",
			"--mode", "ask",
			"--trust",
			"--workspace", RootArg,
		},
		ModelFlag: "--model",
	},
}

// Names returns the registry keys in table order.
func Names() []string {
	names := make([]string, len(Specs))
	for i, s := range Specs {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the adapter registered as name.
func Lookup(name string) (Spec, bool) {
	i := slices.IndexFunc(Specs, func(s Spec) bool { return s.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	return Specs[i], true
}

// Argv returns the arguments (after the program name) for a review run in
// root with model ("" for the CLI's default).
func (s Spec) Argv(root, model string) []string {
	argv := make([]string, 0, len(s.Args)+len(s.Tail)+2)
	for _, a := range s.Args {
		argv = append(argv, strings.ReplaceAll(a, RootArg, root))
	}
	if model = strings.TrimSpace(model); model != "" && s.ModelFlag != "" {
		argv = append(argv, s.ModelFlag, model)
	}
	return append(argv, s.Tail...)
}

// limitPhrases are the texts by which the CLIs say a usage limit or quota is
// exhausted (matched case-insensitively).
var limitPhrases = []string{
	"usage limit",
	"quota exceeded",
	"quota will reset",
	"credit balance is too low",
	"out of extra usage",
	"out of usage",
}

// LimitPhrase returns the first usage-limit phrase found in text
// (case-insensitive), or "".
func LimitPhrase(text string) string {
	lower := strings.ToLower(text)
	for _, p := range limitPhrases {
		if strings.Contains(lower, p) {
			return p
		}
	}
	return ""
}
