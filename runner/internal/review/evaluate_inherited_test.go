package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
)

// Texts and issues of TestEvaluateSkipCoversSkippedCode: the code first
// reported (p), the code the agent skipped (s), other code (x); the two
// similar issues differ only in a one-letter name, which is no
// significant word (fingerprint.Words).
const (
	textP   = "var p = bad()"
	textS   = "var s = bad()"
	textX   = "var x = other()"
	issueP  = "p marker left in the code"
	issueS  = "s marker left in the code"
	issueOt = "integer overflow on 32-bit platforms"
)

// skipFile writes src/c.txt with line 3 and line 4 set, every other line
// unrelated, and returns a diff adding every line and the anchors of the
// lines (identical lines are told apart, see fingerprint.Anchors).
func skipFile(t *testing.T, root, line3, line4 string) (parse.Diff, []string) {
	t.Helper()
	lines := []string{"first", "second", line3, line4, "fifth", "sixth", "seventh", "eighth"}
	p := filepath.Join(root, "src", "c.txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff := fmt.Sprintf("diff --git a/src/c.txt b/src/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/c.txt\n@@ -0,0 +1,%d @@\n+%s\n",
		len(lines), strings.Join(lines, "\n+"))
	return parse.ParseDiff(diff), fingerprint.Anchors(lines)
}

// TestEvaluateSkipCoversSkippedCode pins what a skip covers. Invariant: a
// later report inherits the agent's skip (through the previous review JSON
// or a standing decision of the branch) only when it flags the code that
// was skipped (the text of the line the skipped entry flagged when the
// gauntlet wrote it) with a similar issue; never because the skipped
// entry's id says so. An entry's id is carried over from the earlier
// violation it was matched with (a re-report on the same line, the same
// issue text elsewhere, a fingerprint near it), so it may be the
// fingerprint of code the agent never skipped: that code coming back is a
// new violation.
//
// The table is generated: a first review flags p on line 3; in the second
// review's tree lines 3 and 4 hold p's or s's code or neither, and the
// reviewer flags line 3 or 4 with p's issue, a similar one or another
// (each way the entry may inherit p's id, or not); the agent skips that
// entry; in the third review's tree lines 3 and 4 hold any of the codes,
// and the reviewer flags either line with any of the issues, the skip
// coming through either channel. Every diff adds every line, so only the
// flagged line's own text locates a report. A report that flags the
// skipped code is skipped unless it re-reports, on its line or its code,
// a violation still to verify (pendingClaims: that one stays open, the
// safe way).
func TestEvaluateSkipCoversSkippedCode(t *testing.T) {
	codes2 := [][2]string{{textP, "fourth"}, {textS, "fourth"}, {textP, textS}, {textX, textS}}
	codes3 := []string{textP, textS, textX, "fourth"}
	issues := []string{issueP, issueS, issueOt}
	for _, c2 := range codes2 {
		for s := 3; s <= 4; s++ {
			if c2[s-3] == "fourth" {
				continue
			}
			for _, iS := range issues {
				root := t.TempDir()
				changed, _ := skipFile(t, root, textP, "fourth")
				ev1 := evaluate(evalInput{text: failAnswer(viol("src/c.txt", 3, issueP, "high")), changed: changed, root: root})
				if len(ev1.open) != 1 {
					t.Fatalf("first review: %+v", ev1)
				}
				changed, anchors2 := skipFile(t, root, c2[0], c2[1])
				ev2 := evaluate(evalInput{text: failAnswer(viol("src/c.txt", s, iS, "high")), changed: changed, root: root, previous: ev1.open})
				if len(ev2.open) != 1 {
					t.Fatalf("second review (%q, line %d %q): %+v", c2, s, iS, ev2)
				}
				skipped := ev2.open[0]
				skipped.Status, skipped.Result = gate.ViolationSkipped, "kept on purpose"
				decision := gate.Skip{ID: skipped.ID, File: skipped.File, Line: s, Anchor: skipped.Anchor, Issue: skipped.Issue, Note: "kept on purpose"}
				for _, c3a := range codes3 {
					for _, c3b := range codes3 {
						c3 := [2]string{c3a, c3b}
						changed, anchors3 := skipFile(t, root, c3a, c3b)
						for r := 3; r <= 4; r++ {
							for _, iR := range issues {
								want := anchors3[r-1] == anchors2[s-1] && fingerprint.SimilarIssues(iR, iS) &&
									!pendingClaims(ev2.fixed, anchors3[r-1], r, iR)
								for _, via := range []string{"previous JSON", "standing decision"} {
									in := evalInput{text: failAnswer(viol("src/c.txt", r, iR, "high")), changed: changed, root: root, previous: ev2.fixed}
									if via == "previous JSON" {
										in.skippedBefore = []gate.Violation{skipped}
									} else {
										in.skips = []gate.Skip{decision}
									}
									ev3 := evaluate(in)
									if got := len(ev3.open) == 0; got != want {
										t.Errorf("skipped %q flagged on line %d of %q; then %q on line %d of %q, %s: skip inherited %v, want %v",
											iS, s, c2, iR, r, c3, via, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// pendingClaims reports whether a report of issue on line r, whose code
// has anchor, re-reports one of the violations pending verification: its
// line or its flagged code, and a similar issue.
func pendingClaims(pending []gate.Violation, anchor string, r int, issue string) bool {
	for _, p := range pending {
		n, _ := parse.LineNumber(p.Line)
		if (n == r || p.Anchor == anchor) && fingerprint.SimilarIssues(p.Issue, issue) {
			return true
		}
	}
	return false
}
