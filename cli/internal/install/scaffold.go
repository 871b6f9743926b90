package install

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// The gates init writes besides the checks it finds in the project.
const (
	// SampleCheck is the check written when nothing else passed: it fails
	// on whitespace errors and leftover conflict markers in uncommitted
	// changes.
	SampleCheck = "whitespace"
	// SampleCheckCommand is SampleCheck's command.
	SampleCheckCommand = "git diff --check"
	// SampleReview is the review gate's name.
	SampleReview = "code-quality"
)

// adapterBinaries maps each review adapter to the executables that reveal
// it on PATH, and hookAgents to the agent whose stop hook fits it.
var (
	adapterBinaries = map[string][]string{
		config.AdapterClaude:        {"claude"},
		config.AdapterCodex:         {"codex"},
		config.AdapterGemini:        {"gemini"},
		config.AdapterGitHubCopilot: {"copilot"},
		config.AdapterCursor:        {"cursor-agent", "agent"},
	}
	hookAgents = map[string]hookproto.Agent{
		config.AdapterClaude:        hookproto.Claude,
		config.AdapterCodex:         hookproto.Codex,
		config.AdapterGemini:        hookproto.Gemini,
		config.AdapterGitHubCopilot: hookproto.Copilot,
		config.AdapterCursor:        hookproto.Cursor,
	}
)

// DetectCLIs returns the review adapters whose CLI is on PATH, in
// config.KnownAdapters order.
func DetectCLIs() []string {
	var found []string
	for _, a := range config.KnownAdapters() {
		for _, bin := range adapterBinaries[a] {
			if _, err := exec.LookPath(bin); err == nil {
				found = append(found, a)
				break
			}
		}
	}
	return found
}

// DefaultCLIs is cli.default_preference for a project: the detected CLIs,
// else claude.
func DefaultCLIs(detected []string) []string {
	if len(detected) == 0 {
		return []string{config.AdapterClaude}
	}
	return detected
}

// DefaultAgents is the agents whose hooks init installs by default: those
// of the given review CLIs, else Claude Code.
func DefaultAgents(clis []string) []hookproto.Agent {
	want := map[hookproto.Agent]bool{}
	for _, c := range clis {
		if a, ok := hookAgents[c]; ok {
			want[a] = true
		}
	}
	var out []hookproto.Agent
	for _, a := range hookproto.Agents {
		if want[a] {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = []hookproto.Agent{hookproto.Claude}
	}
	return out
}

// ParseCLIs turns comma-separated review CLI names into a list, checking
// each against config.KnownAdapters and dropping duplicates.
func ParseCLIs(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" || slices.Contains(out, name) {
				continue
			}
			if !config.IsKnownAdapter(name) {
				return nil, fmt.Errorf("unknown review CLI %q (want one of %s)", name, strings.Join(config.KnownAdapters(), ", "))
			}
			out = append(out, name)
		}
	}
	return out, nil
}

const sampleReview = `---
num_reviews: 1
# cli_preference:
#   - claude
# timeout: 300
---
You are reviewing a change made by an AI coding agent. Report only problems
that matter, each with the file and the added line it is on:

- Bugs: wrong logic, off-by-one errors, unhandled errors or edge cases, race
  conditions, resources that are never released.
- Security: injection, secrets in code, unsafe handling of untrusted input,
  missing authorization checks.
- Maintainability: code duplicated instead of reused, needless complexity,
  misleading names or comments, dead code.
- Tests: changed behaviour that no test covers, tests that cannot fail.

Do not report formatting or personal style. Prefer one precise violation over
several vague ones, and say how to fix each one.
`

// yamlString quotes s as a YAML double-quoted scalar (a JSON string is one).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
