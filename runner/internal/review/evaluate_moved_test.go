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
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// movedFile writes file below root: 30 filler lines with line inserted
// after the first at, and returns a diff adding every line (the review
// diff of a new or rewritten file) and line's number.
func movedFile(t *testing.T, root, file, line string, at int) (diff string, n int) {
	t.Helper()
	var ls []string
	for i := range 30 {
		if i == at {
			ls = append(ls, line)
		}
		ls = append(ls, fmt.Sprintf("filler %d", i))
	}
	p := filepath.Join(root, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("diff --git a/%[1]s b/%[1]s\n--- /dev/null\n+++ b/%[1]s\n@@ -0,0 +1,%d @@\n+%s\n", file, len(ls), strings.Join(ls, "\n+")), at + 1
}

// TestEvaluateMovedViolation pins that a violation moved unchanged is the
// one reported before. Invariant: in a verification run, a report whose
// line holds the very text of a pending violation's flagged line (white
// space folded), on a line the diff touches, in the same or another file,
// with a similar issue, re-reports that violation: it keeps its id, stays
// open whatever its priority (the rerun threshold never filters it), and
// the earlier one is not counted fixed. A report on an edited line, or
// one the diff does not touch, is not that violation.
//
// The table: the pending violation (src/a.txt:3) moved down 1, 4 and 20
// lines, to another file, to a renamed file, and the line edited or left
// out of the diff × every priority × the earlier violation marked fixed
// by the agent or not.
func TestEvaluateMovedViolation(t *testing.T) {
	const flagged = "x := smell()"
	moves := []struct {
		name, file, text string
		at               int
		inDiff, same     bool
	}{
		{"down 1", "src/a.txt", flagged, 3, true, true},
		{"down 4", "src/a.txt", flagged, 6, true, true},
		{"down 20", "src/a.txt", flagged, 22, true, true},
		{"another file", "src/b.txt", flagged, 0, true, true},
		{"renamed file", "src/renamed.txt", flagged, 2, true, true},
		{"re-indented", "src/b.txt", "   x :=   smell()", 5, true, true},
		{"edited", "src/b.txt", "x := smell(1)", 0, true, false},
		{"outside the diff", "src/b.txt", flagged, 0, false, false},
	}
	for _, mv := range moves {
		for _, priority := range []string{"low", "medium", "high", "critical"} {
			for _, mark := range []string{gate.ViolationNew, gate.ViolationFixed} {
				t.Run(fmt.Sprintf("%s/%s/%s", mv.name, priority, mark), func(t *testing.T) {
					root := t.TempDir()
					prev := gate.Violation{File: "src/a.txt", Line: 3, Issue: "smell() is called here", Priority: priority,
						Status: mark, Anchor: fingerprint.Anchor(flagged)}
					prev.ID = ID(prev)
					diff, n := movedFile(t, root, mv.file, mv.text, mv.at)
					if !mv.inDiff {
						diff = "diff --git a/src/other.txt b/src/other.txt\n--- /dev/null\n+++ b/src/other.txt\n@@ -0,0 +1 @@\n+other\n"
					}
					ev := evaluate(evalInput{text: failAnswer(viol(mv.file, n, "The call to smell() here is a problem", priority)),
						changed: parse.ParseDiff(diff), root: root, previous: []gate.Violation{prev}, threshold: config.PriorityHigh})
					if !mv.same {
						for _, v := range ev.open {
							if v.ID == prev.ID {
								t.Fatalf("a report of another line took the id of %s: open %+v", prev.ID, ev.open)
							}
						}
						return
					}
					if ev.status != gate.StatusFail || len(ev.open) != 1 || ev.open[0].ID != prev.ID || ev.open[0].File != mv.file {
						t.Fatalf("status %s open %+v below %+v notes %q; want the moved violation open with id %s",
							ev.status, ev.open, ev.belowThreshold, ev.notes, prev.ID)
					}
					if len(ev.fixed) != 0 || len(ev.belowThreshold) != 0 {
						t.Errorf("fixed %+v below the threshold %+v: the moved violation counted as fixed or new", ev.fixed, ev.belowThreshold)
					}
				})
			}
		}
	}
}
