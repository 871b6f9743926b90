package review

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
)

// copiesFile is a file holding n identical flagged lines, one unrelated
// line between each two (so that every copy lies within the fingerprint
// radius of its neighbours), after shift unrelated lines at the top, but
// without the copies in deleted. It returns the content, a diff adding
// every line, and the copies' lines (0 for a deleted one).
func copiesFile(n, shift int, deleted uint) (content, diff string, lines []int) {
	var ls []string
	for i := range shift {
		ls = append(ls, fmt.Sprintf("inserted %d", i))
	}
	for i := range n {
		ls = append(ls, fmt.Sprintf("filler %d", i))
		if deleted&(1<<i) != 0 {
			lines = append(lines, 0)
			continue
		}
		ls = append(ls, "BAD one")
		lines = append(lines, len(ls))
	}
	content = strings.Join(ls, "\n") + "\n"
	diff = fmt.Sprintf("diff --git a/src/c.txt b/src/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/c.txt\n@@ -0,0 +1,%d @@\n+%s\n",
		len(ls), strings.Join(ls, "\n+"))
	return content, diff, lines
}

// copiesAnswer is a reviewer's answer flagging the copies in mask.
func copiesAnswer(lines []int, mask uint) string {
	var vs []string
	for i, l := range lines {
		if mask&(1<<i) != 0 && l > 0 {
			vs = append(vs, viol("src/c.txt", l, "BAD marker left in code", "high"))
		}
	}
	return failAnswer(vs...)
}

// TestEvaluateIdenticalCopies pins the identity of violations on identical
// lines. Invariant: each violation a reviewer reports on a distinct line is
// its own item. Two reports are merged only when they are the same report
// (same file, same line, same issue), never because the flagged lines'
// text is equal; so an agent's mark (skipped, through the previous review
// JSON or a standing decision of the branch; fixed) covers the one copy it
// was made for, and never drops or skips another copy.
//
// The table is generated: n identical lines; the copies the first review
// reports; every split of those into skipped, marked fixed and left open;
// both skip channels; unrelated lines inserted above before the second
// review (a shift the ids must survive); every set of copies the second
// review reports. Each second report is stored (none dropped), no skip
// covers more than one report, at least every reported copy not skipped
// stays open, and, without a shift or a deletion, exactly those.
func TestEvaluateIdenticalCopies(t *testing.T) {
	maxCopies := 3
	if testing.Short() {
		maxCopies = 2
	}
	for n := 1; n <= maxCopies; n++ {
		for _, shift := range []int{0, 2} {
			root := t.TempDir()
			write := func(content string) {
				t.Helper()
				p := filepath.Join(root, "src", "c.txt")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			content1, diff1, lines1 := copiesFile(n, 0, 0)
			all := uint(1)<<n - 1
			for r1 := uint(1); r1 <= all; r1++ {
				write(content1)
				ev := evaluate(evalInput{text: copiesAnswer(lines1, r1), changed: parse.ParseDiff(diff1), root: root})
				if len(ev.stored) != bits.OnesCount(r1) || len(ev.open) != len(ev.stored) {
					t.Fatalf("n=%d first review of %b: stored %d open %d, notes %q", n, r1, len(ev.stored), len(ev.open), ev.notes)
				}
				byCopy := map[int]gate.Violation{}
				ids := map[string]bool{}
				for _, v := range ev.stored {
					l, _ := parse.LineNumber(v.Line)
					byCopy[(l-2)/2] = v
					ids[v.ID] = true
				}
				if len(ids) != len(ev.stored) {
					t.Fatalf("n=%d first review of %b: ids %v shared", n, r1, ids)
				}
				for marks := range pow4(bits.OnesCount(r1)) {
					for _, channel := range []string{"previous JSON", "standing decision"} {
						skipMask, deleted, in := marked(byCopy, r1, marks, channel)
						content2, diff2, lines2 := copiesFile(n, shift, deleted)
						write(content2)
						for r2 := uint(1); r2 <= all; r2++ {
							if r2&deleted != 0 {
								continue // a deleted copy is not reported
							}
							in.text, in.changed, in.root = copiesAnswer(lines2, r2), parse.ParseDiff(diff2), root
							ev := evaluate(in)
							name := fmt.Sprintf("n=%d shift=%d first=%b skipped=%b deleted=%b via %s second=%b", n, shift, r1, skipMask, deleted, channel, r2)
							notSkipped := bits.OnesCount(r2 &^ skipMask)
							switch {
							case len(ev.stored) != bits.OnesCount(r2):
								t.Fatalf("%s: %d reports, %d stored, notes %q", name, bits.OnesCount(r2), len(ev.stored), ev.notes)
							case len(ev.stored)-len(ev.open) > bits.OnesCount(skipMask):
								t.Fatalf("%s: %d of %d stored are not open, but the agent skipped %d", name, len(ev.stored)-len(ev.open), len(ev.stored), bits.OnesCount(skipMask))
							case len(ev.open) < notSkipped:
								t.Fatalf("%s: %d open, want at least %d", name, len(ev.open), notSkipped)
							case shift == 0 && deleted == 0 && len(ev.open) != notSkipped:
								t.Fatalf("%s: %d open, want %d", name, len(ev.open), notSkipped)
							}
						}
					}
				}
			}
		}
	}
}

// pow4 is 4^k: the ways to mark k violations (see marked).
func pow4(k int) int {
	p := 1
	for range k {
		p *= 4
	}
	return p
}

// marked applies the agent's marks (marks in base 4 over the copies of r1
// in order: 0 open, 1 fixed, 2 skipped, 3 deleted and marked fixed) to
// the first review's violations, the skips through channel, and returns
// the skipped and the deleted copies and the second review's input.
func marked(byCopy map[int]gate.Violation, r1 uint, marks int, channel string) (uint, uint, evalInput) {
	var in evalInput
	var skipMask, deleted uint
	for c := 0; r1>>c != 0; c++ {
		if r1&(1<<c) == 0 {
			continue
		}
		v := byCopy[c]
		mark := marks % 4
		marks /= 4
		switch mark {
		case 0:
			in.previous = append(in.previous, v)
		case 1, 3:
			v.Status, v.Result = gate.ViolationFixed, "done"
			in.previous = append(in.previous, v)
			if mark == 3 {
				deleted |= 1 << c
			}
		case 2:
			skipMask |= 1 << c
			if channel == "previous JSON" {
				v.Status, v.Result = gate.ViolationSkipped, "intended"
				in.skippedBefore = append(in.skippedBefore, v)
				continue
			}
			l, _ := parse.LineNumber(v.Line)
			in.skips = append(in.skips, gate.Skip{ID: v.ID, File: v.File, Line: l, Anchor: v.Anchor, Issue: v.Issue, Note: "intended"})
		}
	}
	return skipMask, deleted, in
}

// TestEvaluateIDCollision pins that a report is never dropped as "reported
// twice" because another report of the answer holds its id: here a pending
// violation whose stored id is the one a fresh report on another line
// gets (an id kept from an earlier version of the line, say) is
// re-reported, and the fresh report is kept with an id of its own.
func TestEvaluateIDCollision(t *testing.T) {
	root := t.TempDir()
	content, diff, lines := copiesFile(2, 0, 0)
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "c.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := parse.ParseDiff(diff)
	fresh := evaluate(evalInput{text: copiesAnswer(lines, 0b10), changed: changed, root: root})
	if len(fresh.stored) != 1 {
		t.Fatalf("stored %+v", fresh.stored)
	}
	first := evaluate(evalInput{text: copiesAnswer(lines, 0b01), changed: changed, root: root})
	prev := first.stored[0]
	prev.ID = fresh.stored[0].ID
	ev := evaluate(evalInput{text: copiesAnswer(lines, 0b11), changed: changed, root: root, previous: []gate.Violation{prev}})
	if len(ev.stored) != 2 || len(ev.open) != 2 || ev.stored[0].ID == ev.stored[1].ID {
		t.Fatalf("stored %+v, notes %q", ev.stored, ev.notes)
	}
}
