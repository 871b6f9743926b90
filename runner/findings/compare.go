package findings

import (
	"fmt"
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

// Sources reads the files findings point into, so that a diagnostic is
// known by the text of the line it flags: Base reads a file (its path
// relative to the project root) at the base commit, Work in the work
// tree; either returns nil when it cannot. A nil Sources, or a nil
// function, knows no line's text.
type Sources struct {
	Base, Work func(path string) []string
}

// Compare is CompareWith without the files' text.
func Compare(base, work Result, diff *Diff) Verdict { return CompareWith(base, work, diff, nil) }

// CompareWith judges the findings of a failed check (work) against those
// of the same check on the base commit (base), with the change between
// them (diff; nil when unknown, every line then counts as changed) and
// the files' text (src, for anchors). Everything is matched as a
// multiset: each finding of the base stands for one finding of the work
// tree, no more.
//   - a failed test is known by its suite, name and file (the base's
//     mapped through the change's renames) and the first line of its
//     failure (normalised): the same test failing for another reason is a
//     changed failure, and new; two failures against one on the base make
//     one new;
//   - a diagnostic, or a line of text output that names a file and line,
//     is known by its file (through renames), rule, normalised message
//     and place: the line the base's is on, mapped through the diff, or
//     else the text of the flagged line (blanks dropped) where that line
//     went: rewritten in place, or removed and added elsewhere. A moved or
//     reformatted line keeps its finding; another line with the same
//     message does not, nor does the base's line fixed while the same
//     text is added elsewhere;
//   - another line of text output is new when it is printed more often
//     than on the base (normalised).
//
// Either run being cut short (Truncated), unreadable (Problem) or stopped
// (Stops) makes the verdict unverified, never pre-existing; so does a
// failed check that reports nothing to compare.
func CompareWith(base, work Result, diff *Diff, src *Sources) Verdict {
	v := Verdict{Work: work}
	v.Work.Findings = append([]Finding(nil), work.Findings...)
	counted := 0
	n := NewNormalizer()
	compareTests(base, v.Work.Findings, diff, n, &counted)
	newAnchors(src).compareDiagnostics(base, v.Work.Findings, diff, n, &counted)
	compareLines(base, v.Work.Findings, diff, n, &counted)
	for _, f := range v.Work.Findings {
		if f.Baseline == BaselineNew {
			v.New = append(v.New, f)
		}
	}
	// Not comparable: the findings are marked all the same (what is new
	// is worth telling), but nothing is pre-existing.
	if why := incomparable(base, work); why != "" {
		v.Reason = why
		v.Unverified = append(append(v.Unverified, work.Stops...), base.Stops...)
		return v
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
	case work.Truncated:
		return "not comparable: " + cutText(work)
	case base.Truncated:
		return "not comparable: on the base, " + cutText(base)
	case work.Problem != "":
		return "not comparable: " + work.Problem
	case base.Problem != "":
		return "not comparable: on the base, " + base.Problem
	case len(work.Stops) > 0:
		return "unverified: " + stopsText(work.Stops)
	case len(base.Stops) > 0:
		return "unverified: on the base, " + stopsText(base.Stops)
	}
	return ""
}

// cutText says why a truncated result was cut short (a result read
// before Cut existed says only that it was).
func cutText(r Result) string {
	if r.Cut != "" {
		return r.Cut
	}
	return fmt.Sprintf("more than %d findings, %d lines or %d MB of output", MaxFindings, MaxLines, MaxBytes>>20)
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

// failureKey identifies a failed test and how it failed.
type failureKey struct{ suite, test, file, failure string }

// failureOf is the line that says how a test failed, normalised: pytest's
// first "E " line, else the message's first line, with jest's Expected and
// Received lines.
func failureOf(msg string, n *Normalizer) string {
	var first string
	var extra []string
	for _, l := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(t, "E ") && !strings.HasPrefix(first, "E "):
			first = t
		case first == "":
			first = t
		case strings.HasPrefix(t, "Expected:") || strings.HasPrefix(t, "Received:"):
			extra = append(extra, t)
		}
	}
	return n.Line(strings.Join(append([]string{first}, extra...), " | "))
}

// compareTests marks the failed tests of work: unchanged when the same
// test fails on the base the same way (one base failure for one work
// failure), else new.
func compareTests(base Result, work []Finding, diff *Diff, n *Normalizer, counted *int) {
	have := map[failureKey]int{}
	for _, f := range base.Findings {
		if f.Kind == KindTest && f.Status == StatusFailed {
			have[failureKey{diff.NewPath(f.Suite), f.Test, diff.NewPath(f.File), failureOf(f.Message, n)}]++
		}
	}
	for i := range work {
		f := &work[i]
		if f.Kind != KindTest || f.Status != StatusFailed {
			continue
		}
		*counted++
		k := failureKey{f.Suite, f.Test, f.File, failureOf(f.Message, n)}
		f.Baseline = BaselineNew
		if have[k] > 0 {
			have[k]--
			f.Baseline = BaselineUnchanged
		}
	}
}

// diagKey is a diagnostic's identity in its file, but for its place.
type diagKey struct{ file, rule, message string }

// anchors reads the text of flagged lines, each file once.
type anchors struct {
	src        *Sources
	base, work map[string][]string
}

func newAnchors(src *Sources) *anchors {
	return &anchors{src: src, base: map[string][]string{}, work: map[string][]string{}}
}

// text is line (1-based) of file on a side, blanks dropped ("" when
// unknown).
func (a *anchors) text(baseSide bool, file string, line int) string {
	if a.src == nil || line <= 0 || file == "" {
		return ""
	}
	cache, read := a.work, a.src.Work
	if baseSide {
		cache, read = a.base, a.src.Base
	}
	lines, ok := cache[file]
	if !ok && read != nil {
		lines = read(file)
		cache[file] = lines
	}
	if line > len(lines) {
		return ""
	}
	return strings.Join(strings.Fields(lines[line-1]), "")
}

// baseDiag is one diagnostic of the base, where it is now.
type baseDiag struct {
	// at is its line in the work tree (-1 when the change removed or
	// modified it), anchor the text of the line it flagged.
	at     int
	anchor string
	// from and to are the work tree's lines that replaced its line
	// (see Diff.ReplacedBy), when replaced is true.
	from, to int
	replaced bool
	used     bool
}

// located is true for the findings known by their place: diagnostics,
// and lines of text output that name a file and line.
func located(f Finding) bool {
	return f.Kind == KindDiagnostic || f.Kind == KindLine && f.File != "" && f.Line > 0
}

// placeKey is a located finding's identity but for its place: its file
// (the base's through renames), rule and normalised message (a line of
// text's without the file:line it names).
func placeKey(f Finding, diff *Diff, n *Normalizer) diagKey {
	msg := f.Message
	if f.Kind == KindLine {
		// The file and line are the place: the rest of the line is the
		// message.
		if loc := lineLocationRE().FindStringSubmatchIndex(msg); loc != nil {
			msg = msg[:loc[2]] + msg[loc[1]:]
		}
	}
	return diagKey{diff.NewPath(f.File), f.Rule, n.Line(msg)}
}

// compareDiagnostics marks the located findings of work (see
// CompareWith): first those whose base twin's line the diff maps onto
// theirs, then those whose flagged line reads as the base twin's did,
// where that line went (movedTo).
func (a *anchors) compareDiagnostics(base Result, work []Finding, diff *Diff, n *Normalizer, counted *int) {
	baseAt := map[diagKey][]*baseDiag{}
	for _, f := range base.Findings {
		if !located(f) {
			continue
		}
		k := placeKey(f, diff, n)
		b := &baseDiag{anchor: a.text(true, f.File, f.Line)}
		line, ok := diff.MapLine(k.file, f.Line)
		if !ok {
			line = -1
		}
		b.at = line
		b.from, b.to, b.replaced = diff.ReplacedBy(k.file, f.Line)
		baseAt[k] = append(baseAt[k], b)
	}
	var rest []int
	for i := range work {
		f := &work[i]
		if !located(*f) {
			continue
		}
		*counted++
		f.Baseline = BaselineNew
		if f.Line <= 0 {
			rest = append(rest, i)
			continue
		}
		for _, b := range baseAt[placeKey(*f, nil, n)] {
			if !b.used && b.at == f.Line && !diff.Changed(f.File, f.Line) {
				b.used, f.Baseline = true, BaselineUnchanged
				break
			}
		}
		if f.Baseline == BaselineNew {
			rest = append(rest, i)
		}
	}
	for _, i := range rest {
		f := &work[i]
		anchor := a.text(false, f.File, f.Line)
		for _, b := range baseAt[placeKey(*f, nil, n)] {
			// No line on either side: the count decides. A line's text:
			// the same text flagged on the base, moved or reformatted.
			same := f.Line <= 0 && b.anchor == "" || anchor != "" && b.anchor == anchor && b.movedTo(f, diff)
			if !b.used && same {
				b.used, f.Baseline = true, BaselineUnchanged
				break
			}
		}
	}
}

// movedTo reports whether the base's flagged line can have become f's
// line: rewritten in place (f's line is among those that replaced it),
// or moved (the change removed it with nothing in its place, and added
// f's line). A line fixed in place while its text is added elsewhere is
// the same mistake made again, and new. A diff that cannot tell (unknown,
// cut) leaves the text alone to decide.
func (b *baseDiag) movedTo(f *Finding, diff *Diff) bool {
	if diff == nil || diff.Unknown {
		return true
	}
	if !b.replaced {
		return false
	}
	if f.Line >= b.from && f.Line < b.to {
		return true
	}
	return b.from == b.to && diff.Changed(f.File, f.Line)
}

// compareLines marks the lines of text output: per normalised line (a
// base line's file named as the change renamed it), those printed more
// often than on the base are new (the last ones).
func compareLines(base Result, work []Finding, diff *Diff, n *Normalizer, counted *int) {
	have := map[string]int{}
	for _, f := range base.Findings {
		if f.Kind == KindLine && !located(f) {
			msg := f.Message
			if now := diff.NewPath(f.File); f.File != "" && now != f.File {
				msg = strings.Replace(msg, f.File, now, 1)
			}
			have[n.Line(msg)]++
		}
	}
	for i := range work {
		f := &work[i]
		if f.Kind != KindLine || located(*f) {
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
