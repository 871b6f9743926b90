package fingerprint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimilarIssues(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"The second line is changed without a reason", "the second   line is CHANGED without a reason", true},
		{"The second line is changed without a reason", "Second line changed with no justification", true},
		{"The error returned by Close is ignored", "Error from Close ignored", true},
		{"The error returned by Close is ignored", "Ignoring the error that Close returns", true},
		{"SQL injection: the query is built from user input", "User input concatenated into the SQL query allows injection", true},
		{"The error returned by Close is ignored", "Variable name is misleading", false},
		{"Missing nil check on the config pointer", "Off-by-one error in the loop bound", false},
		{"x", "y", false},
		{"", "", true},
	} {
		if got := SimilarIssues(tc.a, tc.b); got != tc.want {
			t.Errorf("SimilarIssues(%q, %q) = %v, want %v (words %q / %q)", tc.a, tc.b, got, tc.want, Words(tc.a), Words(tc.b))
		}
	}
}

// TestSameSurvivesEdits pins the documented rule on a real file: lines
// inserted above the flagged line, a reviewer pointing at a neighbour, a
// reworded issue and re-indentation keep the violation; a changed line, a
// different problem or another file make a new one.
func TestSameSurvivesEdits(t *testing.T) {
	root := t.TempDir()
	write := func(content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "src", "a.go"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package a\n\nfunc f() {\n\tdefer file.Close()\n}\n")
	before := NewSource(root)
	skipped := Fields{File: "src/a.go", Line: 4, Anchor: before.Anchor("src/a.go", 4), Issue: "The error returned by Close is ignored"}
	if skipped.Anchor == "" {
		t.Fatal("no anchor")
	}

	write("package a\n\nimport \"os\"\n\n// f does things.\nfunc f() {\n        defer file.Close()\n}\n")
	after := NewSource(root)
	for _, tc := range []struct {
		name string
		f    Fields
		want bool
	}{
		{"moved down by three lines, re-indented", Fields{File: "src/a.go", Line: 7, Issue: "The error returned by Close is ignored"}, true},
		{"reviewer points one line off", Fields{File: "./src/a.go", Line: 8, Issue: "Error from Close ignored"}, true},
		{"same place, another problem", Fields{File: "src/a.go", Line: 7, Issue: "The deferred call runs too late for the lock"}, false},
		{"another file", Fields{File: "src/b.go", Line: 7, Issue: "The error returned by Close is ignored"}, false},
		{"far away", Fields{File: "src/a.go", Line: 1, Issue: "The error returned by Close is ignored"}, false},
	} {
		if got := Same(skipped, tc.f, after.Near(tc.f.File, tc.f.Line)); got != tc.want {
			t.Errorf("%s: Same = %v, want %v", tc.name, got, tc.want)
		}
	}

	write("package a\n\nfunc f() {\n\tdefer func() { _ = file.Close() }()\n}\n")
	changed := NewSource(root)
	if Same(skipped, Fields{File: "src/a.go", Line: 4, Issue: skipped.Issue}, changed.Near("src/a.go", 4)) {
		t.Errorf("an edited line still matches its old anchor")
	}
	// Without anchors (a file gone, an old decision), the line decides.
	if !Same(Fields{File: "gone.go", Line: 3, Issue: "x is wrong"}, Fields{File: "gone.go", Line: 3, Issue: "x is wrong"}, nil) ||
		Same(Fields{File: "gone.go", Line: 3, Issue: "x is wrong"}, Fields{File: "gone.go", Line: 4, Issue: "x is wrong"}, nil) {
		t.Errorf("line fallback")
	}
}

func TestID(t *testing.T) {
	a := Fields{File: "src/a.go", Line: 4, Anchor: Anchor("\tdefer file.Close()"), Issue: "The error returned by Close is ignored"}
	id := ID(a)
	if len(id) != IDLength || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Fatalf("ID = %q", id)
	}
	moved := a
	moved.Line, moved.Anchor, moved.Issue = 9, Anchor("  defer   file.Close()"), "the error returned by close is ignored."
	if ID(moved) != id {
		t.Errorf("same anchor and words, another line: id %s != %s", ID(moved), id)
	}
	for _, other := range []Fields{
		{File: "src/b.go", Line: 4, Anchor: a.Anchor, Issue: a.Issue},
		{File: "src/a.go", Line: 4, Anchor: Anchor("other"), Issue: a.Issue},
		{File: "src/a.go", Line: 4, Anchor: a.Anchor, Issue: "Another problem entirely"},
		{File: "src/a.go", Line: 4, Issue: a.Issue},
	} {
		if ID(other) == id {
			t.Errorf("%+v shares id %s", other, id)
		}
	}
}

func FuzzWords(f *testing.F) {
	f.Add("The error returned by Close is ignored")
	f.Add("ß∂ƒ ÄÖÜ 日本語 errors")
	f.Fuzz(func(t *testing.T, s string) {
		ws := Words(s)
		for i, w := range ws {
			if w == "" || (i > 0 && ws[i-1] >= w) {
				t.Fatalf("Words(%q) = %q", s, ws)
			}
		}
		if !SimilarIssues(s, s) {
			t.Fatalf("%q is not similar to itself", s)
		}
	})
}

// TestAnchors pins the anchors of identical lines: every line of a file
// has its own anchor; the first line of a text keeps the bare hash of its
// text (the anchor of every earlier version); a copy keeps its anchor when
// another copy elsewhere, or an unrelated line, is added or removed.
func TestAnchors(t *testing.T) {
	base := []string{"a", "BAD", "b", "BAD", "c", "BAD", "d"}
	as := Anchors(base)
	seen := map[string]bool{}
	for i, a := range as {
		if seen[a] {
			t.Fatalf("line %d shares anchor %s", i+1, a)
		}
		seen[a] = true
	}
	if as[1] != Anchor("BAD") || as[0] != Anchor("a") {
		t.Errorf("first lines: %v", as[:2])
	}
	tests := []struct {
		name  string
		lines []string
		// moved maps base's line indices to the edited file's.
		moved map[int]int
	}{
		{"an unrelated line inserted on top", []string{"x", "a", "BAD", "b", "BAD", "c", "BAD", "d"}, map[int]int{1: 2, 3: 4, 5: 6}},
		{"the middle copy removed", []string{"a", "BAD", "b", "c", "BAD", "d"}, map[int]int{1: 1, 5: 4}},
		{"the last copy removed", []string{"a", "BAD", "b", "BAD", "c", "d"}, map[int]int{1: 1, 3: 3}},
		{"a copy pasted at the end", []string{"a", "BAD", "b", "BAD", "c", "BAD", "d", "BAD"}, map[int]int{1: 1, 3: 3, 5: 5}},
		{"a copy pasted beside the second", []string{"a", "BAD", "b", "BAD", "BAD", "c", "BAD", "d"}, map[int]int{1: 1, 3: 3, 5: 6}},
	}
	for _, tt := range tests {
		got := Anchors(tt.lines)
		for from, to := range tt.moved {
			if got[to] != as[from] {
				t.Errorf("%s: line %d (was %d) has anchor %s, want %s", tt.name, to+1, from+1, got[to], as[from])
			}
		}
	}
}
