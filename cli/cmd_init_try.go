package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stack"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// probeTimeout bounds a tool probe (`cargo clippy --version`, `python3 -c
// 'import pytest'`).
const probeTimeout = 20 * time.Second

// machineTools is stack.Tools for this machine: PATH lookups, and probes run
// the way checks run.
type machineTools struct{}

func (machineTools) Has(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func (m machineTools) Probe(ctx context.Context, dir, command string) bool {
	return runner.TryCheck(ctx, runner.TrialOptions{Root: dir, Dir: ".", Name: "probe", Command: command,
		Timeout: probeTimeout}).Passed
}

// tryProposals runs every proposal whose tools are installed once on the
// tree, one after another, each bounded by its timeout, with a progress
// line per proposal on w. It returns the items in project order; it stops
// early when ctx ends.
func tryProposals(ctx context.Context, w io.Writer, root, base string, projects []stack.Project) []install.Item {
	var items []install.Item
	for _, p := range projects {
		for _, pr := range p.Proposals {
			items = append(items, install.Item{Dir: p.Dir, Label: p.Label, Proposal: pr})
		}
	}
	n := 0
	for _, it := range items {
		if it.Proposal.Missing == "" {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "Trying %d proposed check(s) once on the tree as it is (Ctrl-C stops; nothing is written before the end):\n", n)
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		it := &items[i]
		pr := it.Proposal
		if pr.Missing != "" {
			it.Outcome = install.Missing
			fmt.Fprintf(w, "  %s in %s: needs %s (not installed): left out\n", pr.Name, showDir(it.Dir), pr.Missing)
			continue
		}
		fmt.Fprintf(w, "  %s in %s: %s ... ", pr.Name, showDir(it.Dir), install.Shown(pr))
		t := runner.TryCheck(ctx, runner.TrialOptions{Root: root, Dir: it.Dir, Name: pr.Name, Command: pr.Command,
			BaseBranch: base, Timeout: pr.Timeout})
		switch {
		case t.Canceled:
			fmt.Fprintln(w, "stopped")
		case t.Passed:
			it.Outcome = install.Passed
			fmt.Fprintf(w, "passed (%s)\n", t.Duration.Round(100*time.Millisecond))
		default:
			it.Outcome, it.Choice = install.Failed, install.AsFailing
			it.Failure = failureReason(t.Message, t.Output, pr, filepath.Join(root, filepath.FromSlash(it.Dir)))
			fmt.Fprintf(w, "FAILED (%s)\n", it.Failure)
		}
	}
	return items
}

// showDir shows a project directory.
func showDir(dir string) string {
	if dir == "." {
		return ". (the project root)"
	}
	return runner.SafeText(dir)
}

// maxFailureLine bounds the failure line kept as a note.
const maxFailureLine = 160

// noiseLineRE matches output lines that say nothing about a failure: the
// script banners of npm, pnpm and yarn ("> pkg@1.0.0 test"), make's own
// "*** [target] Error 1", and summary lines of go test ("FAIL	pkg	0.01s",
// "exit status 1").
var noiseLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(> |\$ |yarn run v|Done in |npm (ERR!|error) |make(\[\d+\])?: \*\*\* |exit status \d+$|FAIL\s+\S+\s+[\d.]+s$|FAIL$|ok\s+\S+)`)
})

// errorLineRE matches lines that usually name the problem.
var errorLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(error|fail|panic|not found|cannot|undefined|expected|warning|:\d+:\d+)`)
})

// failureReason tells why a proposed check failed at its trial: its first
// error finding (a test that failed, with the first line of its message;
// a diagnostic at its place), read in the proposal's format from the
// output of a run in dir; the line failureLine picks when it reports
// none.
func failureReason(message, output string, pr stack.Proposal, dir string) string {
	output, _, _ = strings.Cut(output, "\n"+findings.LogHeader+"\n") // the gauntlet's, not the command's
	r := findings.Parse(findings.Spec{Format: pr.Format, Command: pr.Command, Dir: ".", Roots: []string{dir}, Failed: true},
		strings.NewReader(output))
	f, ok := r.FirstError()
	if !ok || f.Kind == findings.KindLine {
		return failureLine(message, output)
	}
	line := f.Title()
	if f.Kind == findings.KindTest {
		if first := strings.TrimSpace(firstLine(f.Message)); first != "" {
			line += ": " + first
		}
	}
	return failureLine(message, line)
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// failureLine is the line that best tells why a check failed: the first
// output line that looks like an error, else the first meaningful one,
// prefixed with the result ("exit 1", "timed out after 300s").
func failureLine(message, output string) string {
	result := strings.ToLower(strings.TrimPrefix(message, "Exited with code "))
	if strings.HasPrefix(message, "Exited with code ") {
		result = "exit " + result
	}
	var first, errLine string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || noiseLineRE().MatchString(l) {
			continue
		}
		if first == "" {
			first = l
		}
		if errorLineRE().MatchString(l) {
			errLine = l
			break
		}
	}
	line := errLine
	if line == "" {
		line = first
	}
	if r := []rune(line); len(r) > maxFailureLine {
		line = string(r[:maxFailureLine-1]) + "…"
	}
	if line == "" {
		return result
	}
	return result + ": " + line
}
