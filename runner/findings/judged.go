package findings

import "sort"

// Judged is what a failed check's findings ask of the agent: the one
// account that its log, its block reason, their counts and the reports
// share.
type Judged struct {
	// Compared is true when the findings were compared with the base.
	Compared bool
	// Fix are the findings to fix, most severe first (in the tool's order
	// within a severity): compared, the new ones, whatever their severity
	// (what makes the check fail where the base does not); not compared,
	// those that fail the check and the warnings.
	Fix []Finding
	// Old are the findings the base has too (compared only).
	Old []Finding
}

// Judge gives r's account (see Judged).
func (r Result) Judge() Judged {
	var j Judged
	for _, f := range r.Findings {
		if f.Baseline != BaselineNone {
			j.Compared = true
			break
		}
	}
	for _, f := range r.Findings {
		switch {
		case f.Baseline == BaselineUnchanged:
			j.Old = append(j.Old, f)
		case j.Compared && f.Baseline == BaselineNew:
			j.Fix = append(j.Fix, f)
		case j.Compared:
			// not compared: a passed or skipped test
		case f.Kind == KindTest && f.Status != StatusFailed:
		case f.Failing() || f.Severity == SeverityWarning:
			j.Fix = append(j.Fix, f)
		}
	}
	sort.SliceStable(j.Fix, func(a, b int) bool { return rank(j.Fix[a]) < rank(j.Fix[b]) })
	return j
}

// rank orders findings: errors (failed tests included) first, then
// warnings, then notes.
func rank(f Finding) int {
	switch {
	case f.Failing():
		return 0
	case f.Severity == SeverityWarning:
		return 1
	}
	return 2
}

// Group is findings folded into one item: the same kind, file, rule,
// severity, test and message, at one or more lines.
type Group struct {
	First Finding
	// Lines are the line of each finding folded, in order.
	Lines []int
}

// Count is how many findings g folds.
func (g Group) Count() int { return len(g.Lines) }

// Fold folds identical findings (see Group) into one item each, in order
// of first appearance; every finding is in exactly one group.
func Fold(fs []Finding) []Group {
	type key struct {
		kind                         Kind
		file, rule, msg, suite, test string
		severity                     Severity
	}
	var out []Group
	at := map[key]int{}
	for _, f := range fs {
		k := key{f.Kind, f.File, f.Rule, f.Message, f.Suite, f.Test, f.Severity}
		if i, ok := at[k]; ok {
			out[i].Lines = append(out[i].Lines, f.Line)
			continue
		}
		at[k] = len(out)
		out = append(out, Group{First: f, Lines: []int{f.Line}})
	}
	return out
}
