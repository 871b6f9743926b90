package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Names of the files Scaffold writes.
const (
	// SampleCheck is the sample check gate's name.
	SampleCheck = "whitespace"
	// SampleReview is the sample review gate's name.
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

// ScaffoldOptions are the answers init collected.
type ScaffoldOptions struct {
	// BaseBranch is base_branch ("" for config.DefaultBaseBranch).
	BaseBranch string
	// CLIs is cli.default_preference (empty for claude).
	CLIs []string
}

// Scaffold creates root/.gauntlet with config.yml, a sample check and the
// code-quality review, and returns the files written, relative to root. It
// fails without writing anything when .gauntlet already exists.
func Scaffold(root string, opts ScaffoldOptions) ([]string, error) {
	dir := filepath.Join(root, config.Dir)
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("%s already exists", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("inspect %s: %w", dir, err)
	}
	base := opts.BaseBranch
	if base == "" {
		base = config.DefaultBaseBranch
	}
	clis := DefaultCLIs(opts.CLIs)
	files := []struct{ rel, content string }{
		{filepath.Join(config.Dir, config.ProjectFile), projectConfig(base, clis)},
		{filepath.Join(config.Dir, config.ChecksDir, SampleCheck+".yml"), sampleCheck},
		{filepath.Join(config.Dir, config.ReviewsDir, SampleReview+".md"), sampleReview},
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(root, f.rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return written, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return written, fmt.Errorf("create %s: %w", path, err)
		}
		_, werr := fh.WriteString(f.content)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return written, fmt.Errorf("write %s: %w", path, werr)
		}
		written = append(written, f.rel)
	}
	return written, nil
}

// yamlString quotes s as a YAML double-quoted scalar (a JSON string is one).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func projectConfig(base string, clis []string) string {
	var prefs strings.Builder
	for _, c := range clis {
		fmt.Fprintf(&prefs, "    - %s\n", c)
	}
	return fmt.Sprintf(`# agent-gauntlet configuration: the gates an agent must pass before it stops.

# The ref your changes are compared against.
base_branch: %s
# Where run logs go (relative to this project's root).
log_dir: %s
# allow_parallel: true
# max_retries: %d

cli:
  # Review CLIs, in order of preference.
  default_preference:
%s  # check_usage_limit: false

# Which gates run when files under each path change.
entry_points:
  - path: "."
    checks:
      - %s
    reviews:
      - %s

# stop_hook:
#   enabled: true
#   run_interval_minutes: %d
#   verify_on_continue: false
`, yamlString(base), config.DefaultLogDir, config.DefaultMaxRetries, prefs.String(), SampleCheck, SampleReview,
		config.DefaultRunIntervalMinutes)
}

const sampleCheck = `# A check gate runs a shell command; a non-zero exit fails the gate.
# ${BASE_BRANCH} in the command is replaced by the effective base branch.
# Add one file per check (lint.yml, unit-tests.yml...) and list it under an
# entry point in ../config.yml.
#
# This sample fails on whitespace errors and leftover conflict markers in
# uncommitted changes.
command: git diff --check
# timeout: 300
# parallel: false
`

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
