package console

import (
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// Rule frames the summary block (46 × '━').
var Rule = strings.Repeat("━", 46)

// SummaryTitle heads the summary block.
const SummaryTitle = "RESULTS SUMMARY"

// Summary counts the outcome of one run.
type Summary struct {
	// Fixed counts review violations confirmed fixed plus checks that failed
	// in the previous run and pass now.
	Fixed int
	// Skipped counts review violations the agent skipped.
	Skipped int
	// Failed counts open problems: ErrorCount (at least 1) of every gate that
	// did not pass.
	Failed int
	// GatesFailed counts the gates that failed or errored.
	GatesFailed int
	// NotRun counts the gates the run never started (gate.StatusNotRun).
	NotRun int
	// Lines are the "✓ Fixed" and "⊘ Skipped" lines of this iteration.
	Lines []string
	// PreExistingGates counts the gates whose failure the base branch has
	// too: not caused by the change, for information. PreExisting are
	// their summary lines.
	PreExistingGates int
	PreExisting      []string
}

// violationText renders `<file>:<line> <issue>`.
func violationText(v gate.Violation) string {
	line := "?"
	if v.Line != nil {
		line = fmt.Sprint(v.Line)
	}
	return fmt.Sprintf("%s:%s %s", Text(v.File), Text(line), Text(v.Issue))
}

func (s *Summary) addViolations(jobID, slot string, fixed, skipped []gate.Violation) {
	jobID = Text(jobID)
	for _, v := range fixed {
		s.Fixed++
		s.Lines = append(s.Lines, fmt.Sprintf("  ✓ Fixed: %s%s - %s", jobID, slot, violationText(v)))
	}
	for _, v := range skipped {
		s.Skipped++
		s.Lines = append(s.Lines, fmt.Sprintf("  ⊘ Skipped: %s%s - %s", jobID, slot, violationText(v)))
		if v.Result != nil && fmt.Sprint(v.Result) != "" {
			s.Lines = append(s.Lines, "    Reason: "+Text(fmt.Sprint(v.Result)))
		}
	}
}

// Summarize counts results. A check that previous shows failing and passes
// now counts as one fix.
func Summarize(results []gate.Result, previous *gate.Pending) Summary {
	var s Summary
	for _, r := range results {
		if r.Status == gate.StatusNotRun {
			s.NotRun++
			continue
		}
		switch {
		case r.Status.Failed():
			s.GatesFailed++
			s.Failed += max(r.ErrorCount, 1)
		case r.Status == gate.StatusPreExisting:
			s.PreExistingGates++
			s.PreExisting = append(s.PreExisting, preExistingLines(r)...)
			if previous.CheckFailed(r.JobID) {
				s.Fixed++
				s.Lines = append(s.Lines, fmt.Sprintf("  ✓ Fixed: %s - only pre-existing failures remain", Text(r.JobID)))
			}
		case previous.CheckFailed(r.JobID):
			s.Fixed++
			s.Lines = append(s.Lines, fmt.Sprintf("  ✓ Fixed: %s - passes now", Text(r.JobID)))
		}
		slotLists := false
		for _, sl := range r.Slots {
			if len(sl.Fixed)+len(sl.Skipped) > 0 {
				slotLists = true
				s.addViolations(r.JobID, fmt.Sprintf(" (%s@%d)", Text(sl.Adapter), sl.Index), sl.Fixed, sl.Skipped)
			}
		}
		if !slotLists {
			s.addViolations(r.JobID, "", r.Fixed, r.Skipped)
		}
	}
	return s
}

// PreExistingLabel names the failures the base branch has too, wherever
// they are listed; PreExistingTitle heads the summary's list of them.
const (
	PreExistingLabel = "Pre-existing failures (not caused by this change; here for information, nothing to fix)"
	PreExistingTitle = PreExistingLabel + ":"
)

// preExistingLines are the summary lines of a pre-existing failure.
func preExistingLines(r gate.Result) []string {
	lines := []string{fmt.Sprintf("  ⚠ %s - %s", Text(r.JobID), Text(r.Message))}
	if r.LogPath != "" {
		lines = append(lines, "    Log: "+Text(r.LogPath))
	}
	return lines
}

// StatusLinePrefix starts the status line of the summary.
const StatusLinePrefix = "Status: "

// PrintSummary prints the summary block: rules, title, this iteration's
// fixes and skips, `Total: <F> fixed, <S> skipped, <X> failed[, <Y> not
// run][ after <n> iterations]` and `Status: <statusText>`.
func (c *Console) PrintSummary(s Summary, iteration int, statusText string) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n%s\n%s\n", Rule, SummaryTitle, Rule)
	if len(s.Lines) > 0 {
		fmt.Fprintf(&b, "Iteration %d:\n", iteration)
		for _, l := range s.Lines {
			b.WriteString(l + "\n")
		}
		b.WriteString(Rule + "\n")
	}
	if len(s.PreExisting) > 0 {
		b.WriteString(PreExistingTitle + "\n")
		for _, l := range s.PreExisting {
			b.WriteString(l + "\n")
		}
		b.WriteString(Rule + "\n")
	}
	fmt.Fprintf(&b, "Total: %d fixed, %d skipped, %d failed", s.Fixed, s.Skipped, s.Failed)
	if s.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", s.NotRun)
	}
	if s.PreExistingGates > 0 {
		fmt.Fprintf(&b, ", %d pre-existing", s.PreExistingGates)
	}
	if iteration > 1 {
		fmt.Fprintf(&b, " after %d iterations", iteration)
	}
	fmt.Fprintf(&b, "\n%s%s\n%s\n", StatusLinePrefix, statusText, Rule)
	_, _ = c.Write([]byte(b.String()))
}
