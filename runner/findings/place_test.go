package findings

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// placeEdit is one change to a file of eight lines where line 3 is
// flagged on the base: the work tree's lines (nil: as on the base), the
// -U0 hunks between them, and whether the work tree's flagged line is the
// base's finding.
type placeEdit struct {
	name  string
	work  []string
	hunks []string
	// flagged is the work tree's flagged lines (1-based).
	flagged []int
	same    bool
}

// TestDiagnosticPlace: a diagnostic of the work tree is the base's only
// when it is the same finding at the same place: the base's line mapped
// through the diff onto it, or the base's flagged line moved (removed
// with nothing in its place, and its text added elsewhere) or rewritten
// in place (its text, blanks dropped, in the hunk that replaced it).
// Another line with the same rule and message, in particular the base's
// line fixed and the same mistake made elsewhere, is new. Each edit runs
// over real output lines of several tools.
func TestDiagnosticPlace(t *testing.T) {
	bad, other := "x = bad( 1 )", "y = ok(2)"
	base := []string{"a", "b", bad, "d", "e", "f", "g", "h"}
	with := func(edits map[int]string) []string {
		w := slices.Clone(base)
		for i, s := range edits {
			w[i-1] = s
		}
		return w
	}
	edits := []placeEdit{
		{"unchanged", nil, nil, []int{3}, true},
		{"shifted by a line above", append([]string{"new"}, base...), []string{"@@ -0,0 +1 @@"}, []int{4}, true},
		{"reformatted in place", with(map[int]string{3: "x = bad(1)"}), []string{"@@ -3 +3 @@"}, []int{3}, true},
		{"moved down", []string{"a", "b", "d", "e", "f", "g", bad, "h"}, []string{"@@ -3 +2,0 @@", "@@ -7,0 +7 @@"}, []int{7}, true},
		{"fixed, made again below", with(map[int]string{3: other, 7: bad}), []string{"@@ -3 +3 @@", "@@ -7 +7 @@"}, []int{7}, false},
		{"fixed, made again above", with(map[int]string{3: other, 1: bad}), []string{"@@ -1 +1 @@", "@@ -3 +3 @@"}, []int{1}, false},
		{"fixed by two lines, made again below", append(append(append([]string{}, base[:2]...), "p", "q"), with(map[int]string{7: bad})[3:]...), []string{"@@ -3 +3,2 @@", "@@ -7 +8 @@"}, []int{8}, false},
		{"kept, made again below", with(map[int]string{7: bad}), []string{"@@ -7 +7 @@"}, []int{3, 7}, false},
		{"fixed and made again in one hunk", with(map[int]string{3: other, 4: bad}), []string{"@@ -3,2 +3,2 @@"}, []int{4}, true},
	}
	tools := []struct{ command, line string }{
		{"go vet ./...", `f.go:%d:14: fmt.Printf format %%d has arg "old" of wrong type string`},
		{"flake8 .", `f.go:%d:1: E201 whitespace after '('`},
		{"mypy .", `f.go:%d: error: Argument 1 to "bad" has incompatible type "int"; expected "str"  [arg-type]`},
		{"sh lint.sh", `f.go:%d:1: bad indentation`},
	}
	for _, tool := range tools {
		for _, e := range edits {
			t.Run(tool.command+"/"+e.name, func(t *testing.T) {
				work := e.work
				if work == nil {
					work = base
				}
				parse := func(lines []int) Result {
					var out []string
					for _, l := range lines {
						out = append(out, fmt.Sprintf(tool.line, l))
					}
					return Parse(Spec{Command: tool.command, Dir: ".", Failed: true}, strings.NewReader(strings.Join(out, "\n")+"\n"))
				}
				b, w := parse([]int{3}), parse(e.flagged)
				if len(b.Findings) != 1 || !located(b.Findings[0]) {
					t.Fatalf("base not one located finding: %+v", b.Findings)
				}
				var diff *Diff
				if e.hunks != nil {
					diff = ParseDiff("diff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n" + strings.Join(e.hunks, "\n") + "\n")
				} else {
					diff = ParseDiff("")
				}
				src := &Sources{Base: func(string) []string { return base }, Work: func(string) []string { return work }}
				v := CompareWith(b, w, diff, src)
				if v.PreExisting != e.same {
					t.Fatalf("pre-existing = %v, want %v (%s); new %+v", v.PreExisting, e.same, v.Reason, v.New)
				}
			})
		}
	}
}
