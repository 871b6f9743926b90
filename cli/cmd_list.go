package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// ListCmd is `agent-gauntlet list`.
type ListCmd struct{}

// Run prints the entry points with their gates, then the check gates (name
// and command), the review gates (name, CLI preference, num_reviews) and,
// when the project has one, what .gauntlet/ci.yml runs in CI.
// Configuration problems are printed as by validate (exit 2).
func (c *ListCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if err != nil {
		return configError(env.Stderr, err)
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	writeList(env.Stdout, cfg)
	return nil
}

// writeList renders the configuration for `list`; every name and command
// from the configuration goes through runner.SafeText.
func writeList(w io.Writer, cfg *config.Config) {
	q := runner.SafeText
	fmt.Fprintln(w, "Entry points:")
	for _, ep := range cfg.EntryPoints {
		fmt.Fprintf(w, "  %s\n", q(ep.Path))
		if len(ep.Exclude) > 0 {
			fmt.Fprintf(w, "    exclude: %s\n", quotedJoin(ep.Exclude, ", "))
		}
		fmt.Fprintf(w, "    checks: %s\n", listJoinOrNone(ep.Checks))
		fmt.Fprintf(w, "    reviews: %s\n", listJoinOrNone(ep.Reviews))
	}

	fmt.Fprintln(w, "Check gates:")
	checks := listSortedNames(cfg.Checks)
	if len(checks) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, name := range checks {
		fmt.Fprintf(w, "  %s: %s\n", q(name), q(cfg.Checks[name].Command))
	}

	fmt.Fprintln(w, "Review gates:")
	reviews := listSortedNames(cfg.Reviews)
	if len(reviews) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, name := range reviews {
		r := cfg.Reviews[name]
		line := fmt.Sprintf("  %s: %s (num_reviews: %d)", q(name), quotedJoin(r.CLIPreference, ", "), r.NumReviews)
		if r.Builtin != "" {
			line += " " + promptSource(r)
		}
		fmt.Fprintln(w, line)
	}
	if cfg.CI != nil {
		writeCIList(w, cfg.CI)
	}
}

// writeCIList renders ci.yml for `list`: runtimes, services, setup steps,
// and the gates that run in CI with what each requires.
func writeCIList(w io.Writer, ci *config.CI) {
	q := runner.SafeText
	fmt.Fprintf(w, "CI (%s):\n", q(ci.File))
	var runtimes, services, setup []string
	for _, r := range ci.Runtimes {
		runtimes = append(runtimes, q(r.Name)+" "+q(r.Version))
	}
	for _, s := range ci.Services {
		services = append(services, q(s.Name)+" ("+q(s.Image)+")")
	}
	for _, s := range ci.Setup {
		setup = append(setup, q(s.Name))
	}
	fmt.Fprintf(w, "  runtimes: %s\n", listJoinOrNone(runtimes))
	fmt.Fprintf(w, "  services: %s\n", listJoinOrNone(services))
	fmt.Fprintf(w, "  setup: %s\n", listJoinOrNone(setup))
	for _, group := range []struct {
		title string
		gates []config.CIGate
	}{{"checks", ci.Checks}, {"reviews", ci.Reviews}} {
		if len(group.gates) == 0 {
			fmt.Fprintf(w, "  %s: (none)\n", group.title)
			continue
		}
		fmt.Fprintf(w, "  %s:\n", group.title)
		for _, g := range group.gates {
			var notes []string
			for _, n := range []struct {
				what  string
				items []string
			}{{"runtimes", g.RequiresRuntimes}, {"services", g.RequiresServices}, {"secrets", g.Secrets}} {
				if len(n.items) > 0 {
					notes = append(notes, n.what+": "+quotedJoin(n.items, ", "))
				}
			}
			for _, s := range g.Setup {
				notes = append(notes, "setup: "+q(s.Name))
			}
			if len(notes) == 0 {
				fmt.Fprintf(w, "    %s\n", q(g.Name))
				continue
			}
			fmt.Fprintf(w, "    %s (%s)\n", q(g.Name), strings.Join(notes, "; "))
		}
	}
}

// listJoinOrNone joins items, each through runner.SafeText, or says "(none)".
func listJoinOrNone(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	return quotedJoin(items, ", ")
}

// quotedJoin joins items, each through runner.SafeText.
func quotedJoin(items []string, sep string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = runner.SafeText(s)
	}
	return strings.Join(out, sep)
}

func listSortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// promptSource says where a review's prompt comes from: a built-in review
// (plus the file's own text when it has some) or the file's own text.
func promptSource(r *config.Review) string {
	switch {
	case r.Builtin != "" && r.OwnText:
		return "built-in " + r.Builtin + ", plus the file's own text"
	case r.Builtin != "":
		return "built-in " + r.Builtin
	}
	return "its own prompt (" + r.File + ")"
}
