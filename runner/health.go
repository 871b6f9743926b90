package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// healthTitle heads the block Health writes.
const healthTitle = "CLI Tool Health Check:"

// healthUnknown is the state of a configured name that is no review CLI.
const healthUnknown = "Unknown"

// lineUnlisted warns, after the health block, of a review gate that no
// entry point lists.
const lineUnlisted = "warning: review gate %q is listed by no entry point, so it never runs\n"

// adapterHealth is the state of one review CLI.
type adapterHealth struct {
	// Name is the adapter's registry key (claude, codex, gemini,
	// github-copilot, cursor).
	Name string
	// Healthy is true when the CLI may take review slots.
	Healthy bool
	// Message is what `health` prints: Installed, Ready, Missing, Usage
	// limit exceeded, Health check timed out, Error: ..., or Unknown.
	Message string
}

// UnservedError names the review gates none of whose CLIs is healthy: they
// would end in an error at run time.
type UnservedError struct {
	// Reviews maps each such gate to its cli_preference.
	Reviews map[string][]string
}

// Error lists the gates and their preferences, sorted by gate name.
func (e *UnservedError) Error() string {
	names := make([]string, 0, len(e.Reviews))
	for n := range e.Reviews {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s (cli_preference: %s)", n, strings.Join(e.Reviews[n], ", "))
	}
	return "no healthy review CLI for: " + strings.Join(parts, "; ")
}

// healthAdapters returns the review CLIs cfg uses, in cli.default_preference
// order followed by any other name a review prefers; with a nil cfg, every
// supported CLI.
func healthAdapters(cfg *config.Config) []string {
	if cfg == nil {
		return adapter.Names()
	}
	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	used := map[string]bool{}
	for _, r := range cfg.Reviews {
		for _, n := range r.CLIPreference {
			used[n] = true
		}
	}
	for _, n := range cfg.CLI.DefaultPreference {
		if len(cfg.Reviews) == 0 || used[n] {
			add(n)
		}
	}
	var extra []string
	for n := range used {
		if !slices.Contains(names, n) {
			extra = append(extra, n)
		}
	}
	slices.Sort(extra)
	for _, n := range extra {
		add(n)
	}
	return names
}

// checkAdapters checks the named review CLIs concurrently in project root:
// on PATH, and when probe is set, answering a tiny prompt without a
// usage-limit message (each probe is bounded by adapter.ProbeTimeout).
func checkAdapters(ctx context.Context, root string, names []string, probe bool) []adapterHealth {
	out := make([]adapterHealth, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		spec, ok := adapter.Lookup(name)
		if !ok {
			out[i] = adapterHealth{Name: name, Message: healthUnknown}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := adapter.Check(ctx, spec, root, probe)
			out[i] = adapterHealth{Name: name, Healthy: h.OK(), Message: h.Message}
		}()
	}
	wg.Wait()
	return out
}

// Health checks the review CLIs of the project at root and writes the
// `CLI Tool Health Check:` block to w, one `  <name padded to 10> : <state>`
// line per CLI. With a nil cfg (no or invalid configuration) every supported
// CLI is checked, without the usage probe; otherwise the CLIs cfg uses,
// probed when cli.check_usage_limit is set. The error is an *UnservedError
// when some review gate that an entry point lists has no healthy CLI left;
// a review gate no entry point lists gets a warning line instead.
func Health(ctx context.Context, root string, cfg *config.Config, w io.Writer) error {
	probe := cfg != nil && cfg.CLI.CheckUsageLimit
	results := checkAdapters(ctx, root, healthAdapters(cfg), probe)
	var b strings.Builder
	b.WriteString(healthTitle + "\n")
	healthy := map[string]bool{}
	for _, r := range results {
		fmt.Fprintf(&b, "  %-10s : %s\n", r.Name, r.Message)
		healthy[r.Name] = r.Healthy
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write health report: %w", err)
	}
	if cfg == nil {
		return nil
	}
	// A review no entry point lists never runs: warned about, never a
	// failure of health, whatever its CLIs say.
	listed := map[string]bool{}
	for _, ep := range cfg.EntryPoints {
		for _, name := range ep.Reviews {
			listed[name] = true
		}
	}
	var unlisted []string
	unserved := map[string][]string{}
	for name, r := range cfg.Reviews {
		switch {
		case !listed[name]:
			unlisted = append(unlisted, name)
		case !slices.ContainsFunc(r.CLIPreference, func(n string) bool { return healthy[n] }):
			unserved[name] = r.CLIPreference
		}
	}
	slices.Sort(unlisted)
	for _, name := range unlisted {
		if _, err := fmt.Fprintf(w, lineUnlisted, name); err != nil {
			return fmt.Errorf("write health report: %w", err)
		}
	}
	if len(unserved) > 0 {
		return &UnservedError{Reviews: unserved}
	}
	return nil
}
