package stophook

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// maxMessageLines bounds the quoted lines of one finding's message (the
// whole message is in the log).
const maxMessageLines = 12

// findingKey is a finding as two checks may both report it (go test's
// vet step and go vet).
type findingKey struct {
	kind                     findings.Kind
	file, rule, message, sub string
	line                     int
}

func keyOf(f findings.Finding) findingKey {
	return findingKey{f.Kind, f.File, f.Rule, f.Message, f.Suite + "\x00" + f.Test, f.Line}
}

// preExistingFindings are the findings of the gates that fail as they do
// on the base branch: no other check's block asks the agent to fix one.
func preExistingFindings(gates []runner.GateResult) map[findingKey]bool {
	out := map[findingKey]bool{}
	for _, g := range gates {
		if g.Status != runner.GatePreExisting || g.Findings == nil {
			continue
		}
		for _, f := range g.Findings.Findings {
			out[keyOf(f)] = true
		}
	}
	return out
}

// usesFindings reports whether a failed check is best told by its
// findings: compared with the base, or holding more than lines of plain
// output (whose tail tells more).
func usesFindings(r *findings.Result) bool {
	if r == nil {
		return false
	}
	j := r.Judge()
	if j.Compared {
		return true
	}
	for _, f := range j.Fix {
		if f.Kind != findings.KindLine {
			return true
		}
	}
	return false
}

// findingsPart is a failed check told by its findings, as its log tells
// them (findings.Result.Judge): each finding to fix (new ones when
// compared with the base) at its file:line with its whole message, failed
// tests by name with their message and location, identical findings
// folded into one item with their count, errors before warnings; those
// the base has too, or another check calls pre-existing (hidden), counted
// apart and never shown; the units that did not run all their tests; the
// note says how many findings are in the log whenever any is left out.
// Every number it gives counts findings: the items shown and the ones cut
// add up to it.
func findingsPart(g runner.GateResult, id string, r findings.Result, hidden map[findingKey]bool) part {
	log := runner.SafeText(g.LogPath)
	p := part{note: "    (… %d more finding(s): all are in " + strings.ReplaceAll(log, "%", "%%") + ")"}
	p.head = append(p.head, fmt.Sprintf("### Check `%s`: %s", id, lowerFirst(runner.SafeText(g.Message))))
	j := r.Judge()
	var fix []findings.Finding
	old := len(j.Old)
	for _, f := range j.Fix {
		if hidden[keyOf(f)] {
			old++
			continue
		}
		fix = append(fix, f)
	}
	what := "finding(s) to fix"
	if j.Compared {
		what = "new finding(s) to fix"
	}
	switch {
	case len(fix) > 0:
		p.head = append(p.head, fmt.Sprintf("It reports %d %s (read as %s; its log: %s):", len(fix), what, runner.SafeText(r.Format), log))
	case len(r.Stops) > 0 || r.Problem != "" || r.Truncated:
		p.head = append(p.head, fmt.Sprintf("Nothing new in what it reports (read as %s; its log: %s), but it cannot be judged pre-existing:", runner.SafeText(r.Format), log))
	default:
		p.head = append(p.head, fmt.Sprintf("It reports nothing new to fix (read as %s; its log: %s).", runner.SafeText(r.Format), log))
	}
	for _, gr := range findings.Fold(fix) {
		item := findingLines(gr)
		p.body = append(p.body, item...)
		p.units = append(p.units, len(item))
		p.weights = append(p.weights, gr.Count())
	}
	for _, s := range r.Stops {
		p.foot = append(p.foot, fmt.Sprintf("Not every test ran: %s: %s.", runner.SafeText(s.Unit), runner.SafeText(s.Reason)))
	}
	if r.Problem != "" {
		p.foot = append(p.foot, "Its output could not be read whole: "+runner.SafeText(r.Problem)+".")
	}
	if old > 0 {
		p.foot = append(p.foot, fmt.Sprintf("%d more finding(s) are on the base branch too, or fail another check the same way there: not caused by this change, left out here (they are in the log).", old))
	}
	if r.Truncated {
		p.foot = append(p.foot, "Its output was too long to read whole: more may be in the log.")
	}
	if g.FixInstructions {
		p.foot = append(p.foot, "Its fix instructions are at the end of that log.")
	}
	return p
}

// findingLines are the lines of one folded finding: a title line and its
// message, quoted.
func findingLines(gr findings.Group) []string {
	f := gr.First
	var title string
	switch f.Kind {
	case findings.KindTest:
		title = fmt.Sprintf("- test `%s` failed", runner.SafeText(strings.TrimSpace(f.Suite+" "+f.Test)))
		if loc := f.Location(); loc != "" {
			title += " at " + runner.SafeText(loc)
		}
		if gr.Count() > 1 {
			title += fmt.Sprintf(" (%d times)", gr.Count())
		}
	case findings.KindDiagnostic:
		title = "- " + runner.SafeText(location(f, gr.Lines)) + " " + string(f.Severity)
		if f.Rule != "" {
			title += " [" + runner.SafeText(f.Rule) + "]"
		}
	default:
		title = "- output line"
		if loc := f.Location(); loc != "" {
			title = "- " + runner.SafeText(loc) + ": output line"
		}
		if gr.Count() > 1 {
			title += fmt.Sprintf(" (%d times)", gr.Count())
		}
	}
	out := []string{title}
	msg := strings.Split(strings.TrimRight(f.Message, "\n"), "\n")
	for i, l := range msg {
		if i == maxMessageLines {
			out = append(out, quoteBar+fmt.Sprintf("(… %d more line(s) of this message in the log)", len(msg)-i))
			break
		}
		out = append(out, quoteBar+quoteLine(l))
	}
	return out
}

// location is a folded diagnostic's place: file:line[:col], and "(N
// times: lines a, b, c)" when it repeats.
func location(f findings.Finding, lines []int) string {
	loc := f.Location()
	if loc == "" {
		loc = "(no file)"
	}
	if len(lines) < 2 {
		return loc
	}
	var ls []string
	for i, l := range lines {
		if i == 5 {
			ls = append(ls, "…")
			break
		}
		ls = append(ls, strconv.Itoa(l))
	}
	return fmt.Sprintf("%s (%d times: lines %s)", loc, len(lines), strings.Join(ls, ", "))
}
