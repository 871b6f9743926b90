package findings

import (
	"fmt"
	"sort"
	"strings"
)

// Verdict is what comparing a failed check's findings with the base's
// says.
type Verdict struct {
	// PreExisting is true when everything the check reports failing is on
	// the base too and nothing is unverified.
	PreExisting bool
	// Reason says why, in one line.
	Reason string
	// New are the findings the change brought, in the work run's order.
	New []Finding
	// Unverified are the stops that keep the comparison from being sure.
	Unverified []Stop
	// Work is the work run's result with each compared finding's
	// Baseline set.
	Work Result
}

// Compare judges the findings of a failed check (work) against those of
// the same check on the base commit (base), with the change between them
// (diff; nil when unknown, every line then counts as changed):
//   - a failed test is new unless the same test (suite and name) fails on
//     the base;
//   - a diagnostic is new when it sits on a line the change added or
//     modified, or when there are more of it (same file, rule and
//     normalised message) on unchanged lines than the base has;
//   - an error line of text output is new when it is printed more often
//     than on the base (normalised).
//
// Either run being cut short (Truncated), unreadable (Problem) or stopped
// (Stops) makes the verdict unverified, never pre-existing; so does a
// failed check that reports nothing to compare. Messages are compared
// normalised (Normalizer.Line).
func Compare(base, work Result, diff *Diff) Verdict {
	v := Verdict{Work: work}
	v.Work.Findings = append([]Finding(nil), work.Findings...)
	if why := incomparable(base, work); why != "" {
		v.Reason = why
		v.Unverified = append(append(v.Unverified, work.Stops...), base.Stops...)
		return v
	}
	counted := 0
	n := NewNormalizer()
	compareTests(base, v.Work.Findings, &counted)
	compareDiagnostics(base, v.Work.Findings, diff, n, &counted)
	compareLines(base, v.Work.Findings, n, &counted)
	for _, f := range v.Work.Findings {
		if f.Baseline == BaselineNew {
			v.New = append(v.New, f)
		}
	}
	switch {
	case counted == 0:
		v.Reason = "it reports nothing to compare with the base"
	case len(v.New) == 1:
		v.Reason = fmt.Sprintf("1 of its %d findings is new: %s", counted, v.New[0].Title())
	case len(v.New) > 1:
		v.Reason = fmt.Sprintf("%d of its %d findings are new: the base does not have them", len(v.New), counted)
	default:
		v.PreExisting = true
		v.Reason = fmt.Sprintf("the base has every one of its %d findings", counted)
	}
	return v
}

// incomparable says why two results cannot be compared ("" when they can).
func incomparable(base, work Result) string {
	switch {
	case work.Truncated || base.Truncated:
		return fmt.Sprintf("not comparable: more than %d findings or %d MB of output", MaxFindings, MaxBytes>>20)
	case work.Problem != "":
		return "not comparable: " + work.Problem
	case base.Problem != "":
		return "not comparable: on the base, " + base.Problem
	case len(work.Stops) > 0:
		return "not comparable: " + stopsText(work.Stops) + "; the tests it kept from running are unverified"
	case len(base.Stops) > 0:
		return "not comparable: on the base, " + stopsText(base.Stops) + "; the tests it kept from running there are unverified"
	}
	return ""
}

// stopsText lists stops for a reason.
func stopsText(stops []Stop) string {
	parts := make([]string, 0, len(stops))
	for _, s := range stops {
		parts = append(parts, fmt.Sprintf("%s: %s", s.Unit, s.Reason))
	}
	return strings.Join(parts, "; ")
}

// testKey identifies a test.
type testKey struct{ suite, test string }

// compareTests marks the failed tests of work: unchanged when the same
// test fails on the base, else new.
func compareTests(base Result, work []Finding, counted *int) {
	failing := map[testKey]bool{}
	for _, f := range base.Findings {
		if f.Kind == KindTest && f.Status == StatusFailed {
			failing[testKey{f.Suite, f.Test}] = true
		}
	}
	for i := range work {
		f := &work[i]
		if f.Kind != KindTest || f.Status != StatusFailed {
			continue
		}
		*counted++
		f.Baseline = BaselineNew
		if failing[testKey{f.Suite, f.Test}] {
			f.Baseline = BaselineUnchanged
		}
	}
}

// diagKey is a diagnostic's identity in its file.
type diagKey struct{ file, rule, message string }

// compareDiagnostics marks the diagnostics of work (see Compare).
func compareDiagnostics(base Result, work []Finding, diff *Diff, n *Normalizer, counted *int) {
	// Where each base diagnostic is now: its file after renames, its
	// line after the hunks above it (0 when the change removed it).
	baseAt := map[diagKey][]int{}
	for _, f := range base.Findings {
		if f.Kind != KindDiagnostic {
			continue
		}
		file := diff.NewPath(f.File)
		k := diagKey{file, f.Rule, n.Line(f.Message)}
		line, ok := diff.MapLine(file, f.Line)
		if !ok {
			line = -1
		}
		baseAt[k] = append(baseAt[k], line)
	}
	// The rest: per key, work diagnostics on unchanged lines.
	rest := map[diagKey][]int{}
	for i := range work {
		f := &work[i]
		if f.Kind != KindDiagnostic {
			continue
		}
		*counted++
		f.Baseline = BaselineUnchanged
		if f.Line > 0 && diff.Changed(f.File, f.Line) || f.Line == 0 && f.File != "" && diff.Changed(f.File, 0) {
			f.Baseline = BaselineNew
			continue
		}
		k := diagKey{f.File, f.Rule, n.Line(f.Message)}
		rest[k] = append(rest[k], i)
	}
	for k, idx := range rest {
		lines := baseAt[k]
		used := make([]bool, len(lines))
		var unmatched []int
		for _, i := range idx {
			hit := false
			for j, l := range lines {
				if !used[j] && l == work[i].Line {
					used[j], hit = true, true
					break
				}
			}
			if !hit {
				unmatched = append(unmatched, i)
			}
		}
		spare := 0
		for _, u := range used {
			if !u {
				spare++
			}
		}
		// More than the base has left: the last ones are new.
		sort.Ints(unmatched)
		for j := spare; j < len(unmatched); j++ {
			work[unmatched[j]].Baseline = BaselineNew
		}
	}
}

// compareLines marks the error lines of text output: per normalised line,
// those printed more often than on the base are new (the last ones).
func compareLines(base Result, work []Finding, n *Normalizer, counted *int) {
	have := map[string]int{}
	for _, f := range base.Findings {
		if f.Kind == KindLine {
			have[n.Line(f.Message)]++
		}
	}
	for i := range work {
		f := &work[i]
		if f.Kind != KindLine {
			continue
		}
		*counted++
		k := n.Line(f.Message)
		if have[k] > 0 {
			have[k]--
			f.Baseline = BaselineUnchanged
		} else {
			f.Baseline = BaselineNew
		}
	}
}
