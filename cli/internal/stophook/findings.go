package stophook

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// maxMessageLines bounds the quoted lines of one finding's message (the
// whole message is in the log).
const maxMessageLines = 12

// shownFindings are the findings a block shows: those that fail the
// check or warn, never one the base has too (Baseline unchanged), error
// lines of plain output only when they were compared with the base, most
// severe first (errors, then warnings, then notes), in the tool's order
// within a severity.
func shownFindings(r findings.Result) []findings.Finding {
	var out []findings.Finding
	for _, f := range r.Findings {
		if f.Baseline == findings.BaselineUnchanged {
			continue
		}
		if f.Kind == findings.KindTest && f.Status != findings.StatusFailed {
			continue
		}
		if f.Kind != findings.KindTest && f.Severity == findings.SeverityNote {
			continue
		}
		if f.Kind == findings.KindLine && f.Baseline == findings.BaselineNone {
			continue // plain output not compared: its tail tells more
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return severityRank(out[i]) < severityRank(out[j]) })
	return out
}

// severityRank orders findings: errors (failed tests included) first.
func severityRank(f findings.Finding) int {
	if f.Failing() {
		return 0
	}
	if f.Severity == findings.SeverityWarning {
		return 1
	}
	return 2
}

// group is findings folded into one item: the same file, rule and message
// at several lines.
type group struct {
	first findings.Finding
	lines []int
}

// foldFindings folds repeated findings (same file, kind, severity, rule
// and message) into one item each, in order of first appearance.
func foldFindings(fs []findings.Finding) []group {
	type key struct {
		kind                   findings.Kind
		file, rule, msg, suite string
		severity               findings.Severity
		test                   string
	}
	var out []group
	at := map[key]int{}
	for _, f := range fs {
		k := key{f.Kind, f.File, f.Rule, f.Message, f.Suite, f.Severity, f.Test}
		if f.Kind == findings.KindTest {
			k.msg = "" // tests are told apart by name
		}
		if i, ok := at[k]; ok && f.Kind != findings.KindTest {
			out[i].lines = append(out[i].lines, f.Line)
			continue
		}
		at[k] = len(out)
		out = append(out, group{first: f, lines: []int{f.Line}})
	}
	return out
}

// findingsPart is a failed check told by its findings: each new (or, with
// no baseline, each) failing finding at its file:line with its whole
// message, failed tests by name with their message and location, repeated
// findings folded with a count, errors before warnings; the findings the
// base has too are counted apart and never shown; the note says how many
// more are in the log whenever any is left out.
func findingsPart(g runner.GateResult, id string, r findings.Result) part {
	log := runner.SafeText(g.LogPath)
	p := part{note: "    (… %d more finding(s): all are in " + strings.ReplaceAll(log, "%", "%%") + ")"}
	p.head = append(p.head, fmt.Sprintf("### Check `%s`: %s", id, lowerFirst(runner.SafeText(g.Message))))
	shown := shownFindings(r)
	p.head = append(p.head, fmt.Sprintf("It reports %d finding(s) to fix (read as %s; its log: %s):", len(shown), runner.SafeText(r.Format), log))
	for _, gr := range foldFindings(shown) {
		item := findingLines(gr)
		p.body = append(p.body, item...)
		p.units = append(p.units, len(item))
	}
	old := 0
	for _, f := range r.Findings {
		if f.Baseline == findings.BaselineUnchanged {
			old++
		}
	}
	if old > 0 {
		p.foot = append(p.foot, fmt.Sprintf("%d more finding(s) are on the base branch too: not caused by this change, left out here (they are in the log).", old))
	}
	for _, s := range r.Stops {
		p.foot = append(p.foot, fmt.Sprintf("Not every test ran: %s: %s.", runner.SafeText(s.Unit), runner.SafeText(s.Reason)))
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
func findingLines(gr group) []string {
	f := gr.first
	var title string
	switch f.Kind {
	case findings.KindTest:
		title = fmt.Sprintf("- test `%s` failed", runner.SafeText(strings.TrimSpace(f.Suite+" "+f.Test)))
		if loc := f.Location(); loc != "" {
			title += " at " + runner.SafeText(loc)
		}
	case findings.KindDiagnostic:
		title = "- " + runner.SafeText(location(f, gr.lines)) + " " + string(f.Severity)
		if f.Rule != "" {
			title += " [" + runner.SafeText(f.Rule) + "]"
		}
	default:
		title = "- error line"
		if len(gr.lines) > 1 {
			title += fmt.Sprintf(" (%d times)", len(gr.lines))
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
