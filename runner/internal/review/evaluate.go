package review

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Messages of slot outcomes.
const (
	msgInvalidJSON      = "invalid review JSON: %v"
	msgFailNoViolations = `reviewer answered "fail" without any violation`
	msgAllDropped       = "every violation the reviewer reported lacked a required field (file, line, issue, priority)"
	msgFound            = "Found %d violation(s)"
	noteOutOfScope      = "%d out-of-scope violation(s) filtered"
	noteDuplicate       = "violation %s:%s reported twice (id %s); kept once"
	noteDecided         = "violation %s:%s (id %s) was skipped before on this branch; it stays skipped"
	noteBelowThreshold  = "%d new violation(s) below the rerun threshold (%s) filtered"
)

// evalInput is everything the verdict on one answer depends on.
type evalInput struct {
	// text is the reviewer's answer (envelope already removed).
	text string
	// changed is the diff the reviewer saw; root resolves absolute paths.
	changed parse.Diff
	root    string
	// paths makes every path of the answer canonical (set by evaluate).
	paths parse.Paths
	// previous are the violations pending for this slot (new and fixed).
	previous []gate.Violation
	// skippedBefore are the violations the agent marked skipped in this
	// slot's previous failing JSON.
	skippedBefore []gate.Violation
	// threshold filters new violations in verification runs.
	threshold config.Priority
	// skips are the agent's standing skip decisions on the run's branch.
	skips []gate.Skip
	// source reads the flagged lines (fingerprint anchors); nil reads
	// below root.
	source *fingerprint.Source
}

// evaluation is the verdict on one reviewer answer.
type evaluation struct {
	status  gate.Status
	message string
	// unusable is true when the answer gives no verdict to act on (no JSON
	// object, an object that is no review, "fail" without a usable
	// violation): the reviewer failed, as if it had crashed, and the agent
	// has nothing to fix.
	unusable bool
	// found is true when a JSON object was extracted (the slot JSON is
	// written then).
	found bool
	// stored go into the slot JSON: open, reviewer-fixed and re-reported
	// skipped violations.
	stored []gate.Violation
	// open are the violations with status new.
	open []gate.Violation
	// fixed and skipped feed the summary.
	fixed   []gate.Violation
	skipped []gate.Violation
	// belowThreshold are the new violations of a verification run that
	// the rerun threshold left out of the verdict: told, never stored.
	belowThreshold []gate.Violation
	// notes are log lines ("Note: ...", "Warning: ...").
	notes []string
}

// evaluate parses, validates and filters one answer. Beyond the upstream
// rules: violations lacking a required field are dropped (with a warning);
// a violation re-reporting a previous one (same file, and same line or same
// issue, or the same fingerprint) is exempt from the added-lines filter and
// from the rerun threshold (it is not a new issue) and keeps its id; one
// re-reporting a violation the agent skipped keeps the skip, as does one
// matching a standing skip decision of the branch (in.skips), both by
// fingerprint only, located strictly (findSkipped). Every stored
// violation carries its id and anchor (see the fingerprint package); a
// violation reported twice in one answer is kept once.
func evaluate(in evalInput) evaluation {
	var ev evaluation
	ex, err := parse.Extract(in.text)
	if err != nil {
		return ev.reviewerFailed(err.Error())
	}
	ev.found = true
	rv, err := parse.Decode(ex.Object)
	if err != nil {
		return ev.reviewerFailed(fmt.Sprintf(msgInvalidJSON, err))
	}
	in = in.canonical()
	previous := in.previous
	if rv.Status == parse.StatusPass {
		ev.status, ev.message = gate.StatusPass, rv.Message
		ev.fixed = previous
		ev.skipped = in.skippedBefore
		return ev
	}
	if !rv.ViolationsArray || len(rv.Violations) == 0 {
		return ev.reviewerFailed(msgFailNoViolations)
	}
	checked := parse.CheckViolations(rv.Violations)
	for _, d := range checked.Dropped {
		ev.notes = append(ev.notes, fmt.Sprintf("Warning: dropped violation %d, missing or invalid %s: %s", d.Index, strings.Join(d.Missing, ", "), d.Raw))
	}
	for _, n := range checked.Notes {
		ev.notes = append(ev.notes, "Note: "+n)
	}
	if len(checked.Kept) == 0 {
		return ev.reviewerFailed(msgAllDropped)
	}
	threshold := in.threshold
	if threshold == "" {
		threshold = config.DefaultRerunNewIssueThreshold
	}
	if in.source == nil {
		in.source = fingerprint.NewSource(in.root)
	}
	rerun := len(previous) > 0
	matched := make([]bool, len(previous))
	outOfScope := 0
	seen := map[string]gate.Violation{}
	claims := in.claims(previous, checked.Kept)
	for k, v := range checked.Kept {
		if i := claims.previous[k]; i >= 0 {
			matched[i] = true
			in.identify(&v, previous[i])
			ev.keepOnce(seen, v)
			continue
		}
		if i := claims.skipped[k]; i >= 0 {
			v.Status = gate.ViolationSkipped
			if v.Result == nil {
				v.Result = in.skippedBefore[i].Result
			}
			in.identify(&v, in.skippedBefore[i])
			if _, ok := seen[v.ID]; !ok {
				seen[v.ID] = v
				ev.stored = append(ev.stored, v)
			}
			continue
		}
		if !in.inScope(v) {
			outOfScope++
			continue
		}
		in.identify(&v, gate.Violation{})
		if held, ok := seen[v.ID]; ok {
			if in.sameReport(held, v) {
				ev.notes = append(ev.notes, "Note: "+fmt.Sprintf(noteDuplicate, v.File, parse.LineText(v.Line), v.ID))
				continue
			}
			v.ID = distinctID(v, seen)
		}
		if i := claims.decided[k]; i >= 0 {
			sk := in.skips[i]
			v.Status = gate.ViolationSkipped
			if v.Result == nil && sk.Note != "" {
				v.Result = sk.Note
			}
			ev.notes = append(ev.notes, "Note: "+fmt.Sprintf(noteDecided, v.File, parse.LineText(v.Line), v.ID))
			ev.keepOnce(seen, v)
			continue
		}
		if rerun && v.Status == gate.ViolationNew && parse.Rank(v.Priority) < parse.Rank(string(threshold)) {
			v.File = in.key(v.File)
			ev.belowThreshold = append(ev.belowThreshold, v)
			continue
		}
		ev.keepOnce(seen, v)
	}
	for i, v := range previous {
		if !matched[i] {
			ev.fixed = append(ev.fixed, v)
		}
	}
	ev.skipped = append(ev.skipped, in.skippedBefore...)
	var filtered []string
	if outOfScope > 0 {
		filtered = append(filtered, fmt.Sprintf(noteOutOfScope, outOfScope))
	}
	if n := len(ev.belowThreshold); n > 0 {
		filtered = append(filtered, fmt.Sprintf(noteBelowThreshold, n, threshold))
	}
	for _, f := range filtered {
		ev.notes = append(ev.notes, "Note: "+f)
	}
	if len(ev.open) == 0 {
		ev.status, ev.message = gate.StatusPass, parse.DefaultPassMessage
		if len(filtered) > 0 {
			ev.message += " (" + strings.Join(filtered, ", ") + ")"
		}
		return ev
	}
	ev.status, ev.message = gate.StatusFail, fmt.Sprintf(msgFound, len(ev.open))
	return ev
}

// reviewerFailed ends the evaluation of an answer that gives no verdict:
// an error of the reviewer, not of the change (see evaluation.unusable).
func (ev evaluation) reviewerFailed(msg string) evaluation {
	ev.status, ev.message, ev.unusable = gate.StatusError, msg, true
	return ev
}

// keepOnce keeps v unless a violation with its id was kept already.
func (ev *evaluation) keepOnce(seen map[string]gate.Violation, v gate.Violation) {
	if _, ok := seen[v.ID]; ok {
		return
	}
	seen[v.ID] = v
	ev.keep(v)
}

// distinctID is an id for v, a report of its own whose id another report
// of the answer holds already (an id inherited from an earlier violation
// may be the one v's own fingerprint gives): its fingerprint with its line
// number, then a counter, until no kept violation holds it.
func distinctID(v gate.Violation, seen map[string]gate.Violation) string {
	f := Fields(v)
	where := f.Anchor + "@" + strconv.Itoa(f.Line)
	for k := 0; ; k++ {
		f.Anchor = where
		if k > 0 {
			f.Anchor += "#" + strconv.Itoa(k)
		}
		if id := fingerprint.ID(f); id != "" {
			if _, ok := seen[id]; !ok {
				return id
			}
		}
	}
}

// keep files a fresh violation by its status: fixed (a reviewer's
// confirmation), skipped, or open (new and anything unknown).
func (ev *evaluation) keep(v gate.Violation) {
	switch v.Status {
	case gate.ViolationFixed:
		ev.fixed = append(ev.fixed, v)
	case gate.ViolationSkipped:
		ev.skipped = append(ev.skipped, v)
	default:
		v.Status = gate.ViolationNew
		ev.open = append(ev.open, v)
	}
	ev.stored = append(ev.stored, v)
}

// canonical returns in with its paths set and every path of the
// violations it holds canonical (see parse.Paths): the earlier ones may
// come from files the TypeScript tool or an agent wrote.
func (in evalInput) canonical() evalInput {
	var known []string
	for _, l := range [][]gate.Violation{in.previous, in.skippedBefore} {
		for _, v := range l {
			known = append(known, v.File)
		}
	}
	for _, sk := range in.skips {
		known = append(known, sk.File)
	}
	in.paths = parse.NewPaths(in.root, in.changed.Files(), known)
	in.previous = in.canonicalAll(in.previous)
	in.skippedBefore = in.canonicalAll(in.skippedBefore)
	if len(in.skips) > 0 {
		skips := make([]gate.Skip, len(in.skips))
		for i, sk := range in.skips {
			sk.File = in.paths.Recorded(sk.File)
			skips[i] = sk
		}
		in.skips = skips
	}
	return in
}

// canonicalAll is a copy of the recorded violations list with canonical
// paths (parse.Paths.Recorded).
func (in evalInput) canonicalAll(list []gate.Violation) []gate.Violation {
	if len(list) == 0 {
		return list
	}
	out := make([]gate.Violation, len(list))
	for i, v := range list {
		v.File = in.paths.Recorded(v.File)
		out[i] = v
	}
	return out
}

// key is the canonical form of a path of the answer (see parse.Paths).
func (in evalInput) key(file string) string { return in.paths.Canonical(file) }

// Tiers of match, from the surest: the report's own line carries the
// anchor and a similar issue (the line moved, or holds one of several
// identical lines: see fingerprint.Anchors), the same line and a
// similar issue, then the same line or the same issue text, then the
// fingerprint (an anchor near the line and similar issue words), then
// the line moved unchanged anywhere the diff touches, in any file (see
// movedFrom).
const (
	tierAnchor = iota
	tierSame
	tierLineOrText
	tierFingerprint
	tierMoved
	tiers
)

// match pairs each violation of reports with the one of list (same file)
// it re-reports, or -1. Reports are paired tier by tier, each previous
// violation with one report at most except exact repeats, so that two
// similar problems on neighbouring lines are never both taken for one of
// them while the other passes as fixed. A reserved report (exactly a
// skipped violation, see claims) is paired at the two surest tiers only.
func (in evalInput) match(list, reports []gate.Violation, reserved []bool) []int {
	out := make([]int, len(reports))
	for r := range out {
		out[r] = -1
	}
	claimer := make([]int, len(list))
	for i := range claimer {
		claimer[i] = -1
	}
	for tier := tierAnchor; tier < tiers; tier++ {
		for r, v := range reports {
			if out[r] >= 0 || tier > tierSame && reserved[r] {
				continue
			}
			for i, p := range list {
				if c := claimer[i]; c >= 0 && (tier > tierSame || !in.sameReport(reports[c], v)) {
					continue
				}
				if in.matches(p, v, tier) {
					out[r] = i
					if claimer[i] < 0 {
						claimer[i] = r
					}
					break
				}
			}
		}
	}
	return out
}

// matches reports whether v re-reports p at the given tier of match.
func (in evalInput) matches(p, v gate.Violation, tier int) bool {
	file := in.key(v.File)
	if tier == tierMoved {
		return in.movedFrom(p, v)
	}
	if in.paths.Recorded(p.File) != file {
		return false
	}
	sameLine := parse.LineText(p.Line) == parse.LineText(v.Line)
	sameText := oneLine(strings.ToLower(p.Issue)) == oneLine(strings.ToLower(v.Issue))
	switch tier {
	case tierAnchor:
		n, _ := parse.LineNumber(v.Line)
		return p.Anchor != "" && p.Anchor == in.source.Anchor(file, n) && fingerprint.SimilarIssues(p.Issue, v.Issue)
	case tierSame:
		return sameLine && (sameText || fingerprint.SimilarIssues(p.Issue, v.Issue))
	case tierLineOrText:
		return sameLine || sameText
	}
	n, _ := parse.LineNumber(v.Line)
	return fingerprint.Same(Fields(p), fingerprint.Fields{File: file, Line: n, Issue: v.Issue}, in.source.Near(file, n))
}

// movedFrom reports whether v is p moved unchanged: v is on a line the
// diff the reviewer judged touches, in any file, within fingerprint.Radius
// of a line whose text is p's flagged line (fingerprint.SameText: a copy's
// anchor is its text's, qualified), and its issue is similar to p's. The
// agent that moves a reported line elsewhere, or renames its file, has
// not fixed it: the report is that violation, not a new one.
func (in evalInput) movedFrom(p, v gate.Violation) bool {
	if p.Anchor == "" || !in.inScope(v) || !fingerprint.SimilarIssues(p.Issue, v.Issue) {
		return false
	}
	n, _ := parse.LineNumber(v.Line)
	for _, a := range in.source.Near(in.key(v.File), n) {
		if fingerprint.SameText(a, p.Anchor) {
			return true
		}
	}
	return false
}

// strictNear are the anchors a report at line n of file may be located by
// when it would inherit a skip (fingerprint.Same): the lines within
// fingerprint.Radius, to forgive a reviewer who pointed a line or two
// off, except when the diff the reviewer judged adds line n: a report on
// a line the change added is about that line, so only its own text
// locates it.
func (in evalInput) strictNear(file string, n int) []string {
	if f := in.key(file); in.changed.Added(f, n) {
		if a := in.source.Anchor(file, n); a != "" {
			return []string{a}
		}
		return nil
	}
	return in.source.Near(file, n)
}

// identify sets v's file to its canonical form, its anchor to the text of
// its line now, and its id: earlier's when v re-reports it (earlier has a
// file), else v's own.
func (in evalInput) identify(v *gate.Violation, earlier gate.Violation) {
	v.File = in.key(v.File)
	n, _ := parse.LineNumber(v.Line)
	v.Anchor = in.source.Anchor(v.File, n)
	v.ID = ""
	if earlier.File != "" {
		v.ID = ID(earlier)
	}
	if v.ID == "" {
		v.ID = ID(*v)
	}
}

// Fields are the fingerprint fields of a stored violation.
func Fields(v gate.Violation) fingerprint.Fields {
	n, _ := parse.LineNumber(v.Line)
	return fingerprint.Fields{File: v.File, Line: n, Anchor: v.Anchor, Issue: v.Issue}
}

// ID is a stored violation's id: the one it carries, else the one its
// fingerprint gives (a file written by the TypeScript tool, or edited by
// hand).
func ID(v gate.Violation) string {
	if id := strings.ToLower(strings.TrimSpace(v.ID)); id != "" {
		return id
	}
	return fingerprint.ID(Fields(v))
}
