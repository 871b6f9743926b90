package install

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/builtin"
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
	// SampleReview is the review init writes by default: the built-in
	// code-quality review.
	SampleReview = builtin.CodeQuality
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

// DefaultReviews are the built-in reviews init writes unless told
// otherwise.
func DefaultReviews() []string { return []string{SampleReview} }

// ParseReviews turns --review values (built-in review names, comma lists,
// "none") into a list in builtin.Names order without duplicates; none
// alone gives an empty list.
func ParseReviews(values []string) ([]string, error) {
	want := map[string]bool{}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			switch {
			case name == "" || name == "none":
			case !builtin.Known(name):
				return nil, fmt.Errorf("unknown built-in review %q (want one of %s, or none)", name, builtin.List())
			default:
				want[name] = true
			}
		}
	}
	out := []string{}
	for _, n := range builtin.Names() {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// ReviewFile is the review file init writes for the built-in review name:
// front matter selecting it, and no text of its own.
func ReviewFile(name string) string {
	return fmt.Sprintf(`---
# %s
# The prompt ships with agent-gauntlet (builtin: %s). Text written below
# the closing --- line is added to it, for this project's own rules.
builtin: %s
num_reviews: 1
# cli_preference:
#   - claude
# timeout: 300
---
`, comment(builtin.Summary(name)), name, name)
}

// yamlString quotes s as a YAML double-quoted scalar (a JSON string is one).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
