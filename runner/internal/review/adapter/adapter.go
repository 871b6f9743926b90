// Package adapter runs the AI review CLIs (claude, codex, gemini, copilot,
// cursor-agent) non-interactively and read-only: argv from one table (Specs),
// the prompt and diff on stdin (never in argv), the project root as working
// directory (or, for a CLI that would load the project's files as its own
// instructions and settings, an empty directory outside it: Spec.Outside),
// a process group of their own with the gate's timeout, and
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
	// Outside runs the CLI in a fresh empty directory outside the project,
	// the project being named to it by flag (RootArg): a CLI that loads
	// instructions, settings or tools from its working directory (and the
	// git repository around it) then finds none of the project's files,
	// which the gated agent can write.
	Outside bool
}

// Specs is the one table of review CLIs and their exact arguments, in the
// order `health` lists them. Each line was checked against the real CLI's
// --help and, except cursor's, in a real offline review turn against a
// loopback model stand-in (prompt piped on stdin, scripted tool calls that try
// to write, delete and run commands; see testdata/e2e/review_claude_skip_readonly.txtar):
//
//   - claude (@anthropic-ai/claude-code 2.1.328): -p prints one answer and
//     exits, reading the prompt from stdin; --allowedTools Read,Glob,Grep
//     pre-approves the read-only tools, and in print mode every other tool
//     that needs approval is denied (Write, Edit, `touch`, `find -delete`,
//     output redirection were refused; reading shell commands such as `cat`
//     still run); --max-turns bounds the agent loop (hidden from --help; the
//     envelope says "error_max_turns" past it); --output-format json gives
//     result text, cost and token usage; --settings {"disableAllHooks":true}
//     keeps the user's hooks (including our stop hook) out of the child
//     session; --setting-sources user loads no file of the project, which
//     the gated agent can write: neither .claude/settings.json nor
//     settings.local.json (hooks, apiKeyHelper, env, permissions, MCP
//     approvals), nor CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md or a
//     nested CLAUDE.md, nor .claude/agents, commands or skills;
//     --strict-mcp-config starts no MCP server (.mcp.json included), as
//     --mcp-config is not given (testdata/e2e/review_claude_project_config.txtar).
//   - codex (@openai/codex 0.169.0): exec is the non-interactive mode;
//     --sandbox read-only lets commands read but never write (`touch` and
//     `rm` failed with "Read-only file system"); -c approval_policy="never"
//     never waits for an approval nobody can give and refuses escalation
//     requests (the --ask-for-approval flag left `exec`); --color never
//     keeps escape codes out of the logs; "-" reads the instructions from
//     stdin. Stdout is the final message only. Codex loads AGENTS.md,
//     AGENTS.override.md and skills (.agents/, .codex/) from its working
//     directory's repository, and in a project the user trusts the whole
//     .codex/ layer (developer instructions, MCP servers that it starts),
//     with no flag to refuse them (-c project_doc_max_bytes=0 drops
//     AGENTS.md only; a -c trust_level override is ignored): it runs
//     Outside, in an empty directory, where --skip-git-repo-check lets it
//     start and --add-dir names the project (the model sees it among its
//     workspace roots; the read-only sandbox reads everywhere).
//     testdata/e2e/review_codex_project_config.txtar plants every such file.
//   - gemini (@google/gemini-cli 0.61.0): a piped stdin without -p is
//     headless mode; --approval-mode default leaves headless mode with the
//     read-only tools only (no shell, edit or write tool is offered to the
//     model); --skip-trust trusts the working directory for this session,
//     without which headless mode exits 55 in a folder never trusted
//     interactively; --output-format json gives "response" and "stats" on
//     stdout (an error envelope goes to stderr instead). --sandbox is not
//     used: it needs a container runtime and fails where none is installed.
//     A trusted session loads GEMINI.md from every workspace directory
//     (--include-directories ones too, whatever the user's settings say) and
//     .gemini/.env (which can replace the system prompt), settings, policies,
//     commands, agents and skills from the working directory: gemini runs
//     Outside, in an empty directory, and is given no project directory, so
//     it judges the diff on stdin alone
//     (testdata/e2e/review_gemini_project_config.txtar).
//   - github-copilot (@github/copilot 1.0.102): a piped prompt without -p
//     runs one prompt and exits; -s prints only the answer; --no-ask-user
//     never waits for a human; --allow-tool grants only reading shell
//     commands, whose rules match the command name (chains and redirections
//     still need an approval nobody gives, so they are denied), and
//     --deny-tool write forbids the file-writing tools. `find` is not allowed:
//     shell(find) let `find -delete` remove a file.
//   - cursor (`agent`, not on npm: installed by Cursor's own script, so not
//     run here; flags as documented): -p (--print) is headless and reads the
//     prompt from stdin; --mode ask is the read-only mode; --output-format
//     text prints the final answer only; --trust accepts the workspace
//     without a prompt; --workspace pins the root.
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
			"--setting-sources", "user",
			"--strict-mcp-config",
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
			"--skip-git-repo-check",
			"--add-dir", RootArg,
			"--color", "never",
		},
		ModelFlag: "-m",
		Tail:      []string{"-"},
		Outside:   true,
	},
	{
		Name:   Gemini,
		Binary: "gemini",
		Args: []string{
			"--approval-mode", "default",
			"--skip-trust",
			"--output-format", "json",
		},
		ModelFlag: "-m",
		Envelope:  EnvelopeGemini,
		Outside:   true,
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
