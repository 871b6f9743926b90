package review

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
)

// reportClaims says, for each report of one answer, which earlier
// violation it is (an index, or -1): a pending one it re-reports
// (previous), one the agent skipped in the previous review JSON
// (skipped), or a standing skip decision of the branch (decided).
//
// Each earlier violation is claimed by one report at most, except by
// repeats of that same report (same file, same line, similar issue): two
// reports on identical lines are two violations, and a skip made for one
// never covers, nor drops, the other.
type reportClaims struct {
	previous, skipped, decided []int
}

// skipMark is an earlier skip as the claims compare it: what it flagged
// (never its id, see fingerprint.Exactly).
type skipMark struct {
	fields fingerprint.Fields
}

// Tiers of a skip claim: the report's own line carries the skip's anchor
// (fingerprint.Exactly; never its id alone), then the skip's anchor is near it (see strictNear).
const (
	skipExact = iota
	skipNear
	skipTiers
)

// claims pairs the reports with the earlier violations. A report that
// is exactly a skipped one (skipExact) is kept from the loose tiers of
// the match with previous (a report on a skipped copy is not taken for
// a pending copy's re-report); a standing decision is claimed only by a
// report in the diff's scope.
func (in evalInput) claims(previous, reports []gate.Violation) reportClaims {
	skipped := make([]skipMark, len(in.skippedBefore))
	for i, v := range in.skippedBefore {
		skipped[i] = skipMark{fields: Fields(v)}
	}
	decided := make([]skipMark, len(in.skips))
	for i, sk := range in.skips {
		decided[i] = skipMark{fields: fingerprint.Fields{File: sk.File, Line: sk.Line, Anchor: sk.Anchor, Issue: sk.Issue}}
	}
	reserved := make([]bool, len(reports))
	for k, v := range reports {
		for _, m := range skipped {
			reserved[k] = reserved[k] || in.skipMatches(m, v, skipExact)
		}
		for _, m := range decided {
			reserved[k] = reserved[k] || in.inScope(v) && in.skipMatches(m, v, skipExact)
		}
	}
	var c reportClaims
	c.previous = in.match(previous, reports, reserved)
	c.skipped = in.claim(skipped, reports, func(k int) bool { return c.previous[k] < 0 })
	c.decided = in.claim(decided, reports, func(k int) bool {
		return c.previous[k] < 0 && c.skipped[k] < 0 && in.inScope(reports[k])
	})
	return c
}

// claim pairs each report that free allows with the skip of marks it is,
// or -1, tier by tier, each skip with one report and its repeats.
func (in evalInput) claim(marks []skipMark, reports []gate.Violation, free func(k int) bool) []int {
	out := make([]int, len(reports))
	for k := range out {
		out[k] = -1
	}
	claimer := make([]int, len(marks))
	for i := range claimer {
		claimer[i] = -1
	}
	for tier := skipExact; tier < skipTiers; tier++ {
		for k, v := range reports {
			if out[k] >= 0 || !free(k) {
				continue
			}
			for i, m := range marks {
				if claimer[i] >= 0 && !in.sameReport(reports[claimer[i]], v) {
					continue
				}
				if in.skipMatches(m, v, tier) {
					out[k] = i
					if claimer[i] < 0 {
						claimer[i] = k
					}
					break
				}
			}
		}
	}
	return out
}

// skipMatches reports whether v is the skipped violation m at the given
// tier. Never on the line or the issue text alone: v must be m by its
// fingerprint, located strictly (strictNear). A different problem on the
// skipped one's line, the same words elsewhere in the file, or a similar
// problem (or an identical copy) on a line the change added beside it is
// another violation, and must not inherit the skip.
func (in evalInput) skipMatches(m skipMark, v gate.Violation, tier int) bool {
	file := in.key(v.File)
	if in.paths.Recorded(m.fields.File) != file {
		return false
	}
	n, _ := parse.LineNumber(v.Line)
	later := fingerprint.Fields{File: file, Line: n, Issue: v.Issue}
	if tier == skipNear {
		return fingerprint.Same(m.fields, later, in.strictNear(file, n))
	}
	later.Anchor = in.source.Anchor(file, n)
	return fingerprint.Exactly(m.fields, later)
}

// sameReport reports whether a and b are one report repeated: the same
// file, the same line and similar issues.
func (in evalInput) sameReport(a, b gate.Violation) bool {
	return in.key(a.File) == in.key(b.File) && parse.LineText(a.Line) == parse.LineText(b.Line) &&
		fingerprint.SimilarIssues(a.Issue, b.Issue)
}

// inScope reports whether v is in the scope of the diff the reviewer
// judged: on a line it adds or beside a deletion (any line when the diff
// names no file), placed nowhere (see unplaced), or on a path that spells
// several changed paths (parse.Paths.Several: no one of them can be
// told out of scope).
func (in evalInput) inScope(v gate.Violation) bool {
	if in.changed.Empty() {
		return true
	}
	n, _ := parse.LineNumber(v.Line)
	file := in.key(v.File)
	return in.changed.Touched(file, n) || in.unplaced(file) || in.paths.Several(v.File)
}

// unplaced reports whether the canonical path file, inside the project,
// is no file of the diff and names nothing in the project: a spelling
// of a changed path too far from it to be matched (or matching several),
// or a name the reviewer made up. Such a finding is no remark on code
// outside the change, and filtering it would turn the reviewer's "fail"
// into a pass nobody sees: it is kept, for the agent to fix or skip.
func (in evalInput) unplaced(file string) bool {
	if in.changed.Has(file) || file == "" || file == "." || path.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") || in.root == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(in.root, filepath.FromSlash(file)))
	return errors.Is(err, fs.ErrNotExist)
}
