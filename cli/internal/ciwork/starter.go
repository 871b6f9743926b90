package ciwork

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Starter returns the .gauntlet/ci.yml that ci init writes when there is
// none: every check gate that an entry point runs and that runs in CI is
// listed, so the first workflow already checks something; runtimes,
// services, setup and reviews are commented examples.
func Starter(cfg *config.Config) []byte {
	var b strings.Builder
	b.WriteString(`# CI configuration of agent-gauntlet. The GitHub Actions workflow that
# agent-gauntlet ci init writes runs each gate listed below in its own job.
# Run agent-gauntlet ci init again after changing services or secrets.

# Runtimes, set up with their official actions: node, python, go, java
# (distribution defaults to temurin), ruby (bundler_cache), bun.
runtimes:
  # node:
  #   version: "22"

# Service containers, each started for the jobs that require it.
services:
  # postgres:
  #   image: postgres:16
  #   env: {POSTGRES_PASSWORD: postgres}
  #   ports: ["5432:5432"]
  #   health_check: {cmd: pg_isready, interval: 10s, timeout: 5s, retries: 5}

# Shell steps every job runs first, in the project root. A step may have a
# working_directory and an if (a shell condition: it runs when that exits 0).
setup:
  # - name: Install dependencies
  #   run: npm ci

# The check gates that run in CI: one job per gate and working directory.
checks:
`)
	checks := ciChecks(cfg)
	if len(checks) == 0 {
		b.WriteString("  # - name: lint\n")
	}
	for i, name := range checks {
		fmt.Fprintf(&b, "  - name: %s\n", yamlScalar(name))
		if i == 0 {
			b.WriteString("    # requires_runtimes: [node]\n    # requires_services: [postgres]\n    # secrets: [SONAR_TOKEN]\n    # setup:\n    #   - name: Build\n    #     run: make build\n")
		}
	}
	review := "code-quality"
	if names := sortedGateNames(cfg.Reviews); len(names) > 0 {
		review = names[0]
	}
	fmt.Fprintf(&b, `
# Review gates run in CI only when listed here: each needs its AI CLI, installed
# by a setup step, and its credentials, as repository secrets.
reviews:
  # - name: %s
  #   requires_runtimes: [node]
  #   secrets: [ANTHROPIC_API_KEY]
  #   setup:
  #     - name: Install Claude Code
  #       run: npm install -g @anthropic-ai/claude-code
`, yamlScalar(review))
	return []byte(b.String())
}

// ciChecks lists the check gates a CI run would run, in the order the
// entry points first name them.
func ciChecks(cfg *config.Config) []string {
	var out []string
	for _, ep := range cfg.EntryPoints {
		for _, name := range ep.Checks {
			if c, ok := cfg.Checks[name]; ok && c.RunInCI && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func sortedGateNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// yamlScalar renders s as a YAML scalar, quoted when it needs quotes.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	line := strings.TrimSuffix(string(out), "\n")
	if err != nil || strings.Contains(line, "\n") {
		return fmt.Sprintf("%q", s) // Go's escapes are YAML double-quoted escapes too
	}
	return line
}
