package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// Every spelling of a known path, and of the project root, comes back as
// the one project-relative path; what lies outside the project never
// equals a project path.
func TestCanonical(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	known := []string{"src/a.txt", "src/ü n.go", "lib/util.go", "other/util.go", `odd\name.txt`}
	p := NewPaths(link, known)
	for _, tt := range []struct{ in, want string }{
		{"src/a.txt", "src/a.txt"},
		{"./src/a.txt", "src/a.txt"},
		{"src//a.txt", "src/a.txt"},
		{"src/./a.txt", "src/a.txt"},
		{"src/../src/a.txt", "src/a.txt"},
		{" src/a.txt\t", "src/a.txt"},
		{`src\a.txt`, "src/a.txt"},
		{`.\src\a.txt`, "src/a.txt"},
		{link + "/src/a.txt", "src/a.txt"},
		{real + "/src/a.txt", "src/a.txt"},        // the root with its symbolic links resolved
		{link + "/lib/../src/a.txt", "src/a.txt"}, // through the project and back
		{"../" + filepath.Base(link) + "/src/a.txt", "src/a.txt"},
		{`C:\Users\dev\project\src\a.txt`, "src/a.txt"}, // a Windows checkout
		{"c:/work/project/src/ü n.go", "src/ü n.go"},
		{"/home/ci/project/src/a.txt", "src/a.txt"}, // another machine's checkout
		{"pkg/src/a.txt", "src/a.txt"},              // from the repository's top level
		{"b/src/a.txt", "src/a.txt"},
		{"a/src/a.txt", "src/a.txt"},
		{"a.txt", "src/a.txt"},
		{`odd\name.txt`, `odd\name.txt`}, // a name with a backslash, as the diff holds it
		{"util.go", "util.go"},           // two files end so: none is chosen
		{"/etc/passwd", "/etc/passwd"},   // outside the project
		{"../elsewhere/x.go", filepath.ToSlash(filepath.Dir(link)) + "/elsewhere/x.go"},
		{"new/file.go", "new/file.go"}, // not known: as written, cleaned
		{"", ""},
	} {
		if got := p.Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Windows roots: the drive letter in either case
	w := NewPaths(`C:\work\project`, []string{"src/a.txt"})
	if got := w.Canonical(`c:\work\project\src\a.txt`); got != "src/a.txt" {
		t.Errorf("Canonical on a Windows root = %q", got)
	}
}

// Canonical never panics, and what it returns it returns again.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"./a", "/repo/a", `C:\x\a`, "../x", "a//b/../c", " b/a ", `\\server\share\a`, "..", "/", "."} {
		f.Add(s)
	}
	p := NewPaths("/repo", []string{"a", "src/a.go", "x/y/z.go"})
	f.Fuzz(func(t *testing.T, in string) {
		once := p.Canonical(in)
		if twice := p.Canonical(once); twice != once {
			t.Fatalf("Canonical(%q) = %q, then %q", in, once, twice)
		}
	})
}

// A name that is no plain text reaches the reviewer as git quotes it, and
// comes back in whatever its answer can carry: git's quoted form, with
// or without the quotes and a/ or b/, or its bytes that are no UTF-8 as
// U+FFFD (one each, or one a run). Every one is the name the diff holds;
// a spelling two names share is neither.
func TestCanonicalOddNames(t *testing.T) {
	known := []string{"n\xff\xfe.txt", "new\nline.txt", `q"uo"te.txt`, "d/é\x01.txt", "m\xff.txt", "m\xfe.txt"}
	p := NewPaths("", known)
	for _, tt := range []struct{ in, want string }{
		{"n\xff\xfe.txt", "n\xff\xfe.txt"},
		{`"n\377\376.txt"`, "n\xff\xfe.txt"},
		{`n\377\376.txt`, "n\xff\xfe.txt"},
		{`"b/n\377\376.txt"`, "n\xff\xfe.txt"},
		{"n\ufffd\ufffd.txt", "n\xff\xfe.txt"},
		{"n\ufffd.txt", "n\xff\xfe.txt"},
		{`"new\nline.txt"`, "new\nline.txt"},
		{`new\nline.txt`, "new\nline.txt"},
		{`"q\"uo\"te.txt"`, `q"uo"te.txt`},
		{`q\"uo\"te.txt`, `q"uo"te.txt`},
		{`"d/\303\251\001.txt"`, "d/é\x01.txt"},
		{`d/\303\251\001.txt`, "d/é\x01.txt"},
		{`"m\377.txt"`, "m\xff.txt"},
		{`"m\376.txt"`, "m\xfe.txt"},
	} {
		if got := p.Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := p.Canonical("m\ufffd.txt"); got == "m\xff.txt" || got == "m\xfe.txt" {
		t.Errorf("Canonical(m\\ufffd.txt) = %q: two names spell it, it names neither", got)
	}
}

// TestCanonicalBlankEnds: a name with blanks at its ends (a space, a tab)
// is the diff's one path however the reviewer's answer spells it: exactly,
// or with the blanks dropped or added at either end; the exact name wins
// over a trimmed match, and a trimmed text two paths share names neither.
func TestCanonicalBlankEnds(t *testing.T) {
	known := []string{"src/lib.sh ", " lead.txt", "tab.txt\t", "\tboth\t.go", "d /x.txt", "twin", "twin "}
	p := NewPaths("/repo", known)
	for _, tt := range []struct{ in, want string }{
		{"src/lib.sh ", "src/lib.sh "},
		{"src/lib.sh", "src/lib.sh "},
		{" src/lib.sh", "src/lib.sh "},
		{"src/lib.sh\t", "src/lib.sh "},
		{"./src/lib.sh", "src/lib.sh "},
		{"b/src/lib.sh ", "src/lib.sh "},
		{"/repo/src/lib.sh ", "src/lib.sh "},
		{"/repo/src/lib.sh", "src/lib.sh "},
		{`"src/lib.sh "`, "src/lib.sh "},
		{" lead.txt", " lead.txt"},
		{"lead.txt", " lead.txt"},
		{"lead.txt ", " lead.txt"},
		{"tab.txt\t", "tab.txt\t"},
		{"tab.txt", "tab.txt\t"},
		{`"tab.txt\t"`, "tab.txt\t"},
		{"\tboth\t.go", "\tboth\t.go"},
		{"both\t.go", "\tboth\t.go"},
		{"d /x.txt", "d /x.txt"},
		{"d/x.txt", "d /x.txt"},
		{"twin", "twin"},
		{"twin ", "twin "},
	} {
		if got := p.Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := p.Canonical("twin  "); got == "twin " {
		t.Errorf("Canonical(%q) = %q: two paths trim alike, the trimmed text names neither exactly", "twin  ", got)
	}
}

// A reviewer retypes a name in another Unicode form or case: the one
// changed path it spells is the name, in NFC or NFD, another case or a
// compatibility form alike, even when the spelling is byte for byte
// another file of the project (on disk, or an earlier violation's) that
// the change leaves alone; a spelling two paths share names neither.
func TestCanonicalUnicodeForms(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"README.md", "readme.md"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	known := []string{"src/cafe\u0301.txt", "docs/Guide.md", "readme.md", "x/ｗide.txt", "twin/é", "twin/e\u0301"}
	p := NewPaths(root, known)
	for _, tt := range []struct{ in, want string }{
		{"src/caf\u00e9.txt", "src/cafe\u0301.txt"},
		{`"src/caf\303\251.txt"`, "src/cafe\u0301.txt"},
		{`"src/cafe\314\201.txt"`, "src/cafe\u0301.txt"},
		{"./src/caf\u00e9.txt", "src/cafe\u0301.txt"},
		{"b/src/caf\u00e9.txt", "src/cafe\u0301.txt"},
		{root + "/src/caf\u00e9.txt", "src/cafe\u0301.txt"},
		{"caf\u00e9.txt", "src/cafe\u0301.txt"},
		{"DOCS/guide.md", "docs/Guide.md"}, // no such file: the changed one
		{"README.md", "readme.md"},         // another file of the project, unchanged: the changed one
		{"x/wide.txt", "x/ｗide.txt"},
		{"twin/é", "twin/é"},
		{"twin/e\u0301", "twin/e\u0301"},
	} {
		if got := p.Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := p.Canonical("TWIN/É"); got == "twin/é" || got == "twin/e\u0301" {
		t.Errorf("Canonical(TWIN/É) = %q: two paths fold alike, it names neither", got)
	}
	if !p.Several("TWIN/É") || !p.Several("twin/é") || p.Several("README.md") {
		t.Errorf("Several: TWIN/É and twin/é spell two changed paths, README.md one")
	}

	// an earlier violation's path, unchanged now, yields to the changed
	// path the spelling folds to; it keeps its own name otherwise
	q := NewPaths(root, []string{"readme.md"}, []string{"README.md", "old/x.go"})
	for in, want := range map[string]string{"README.md": "readme.md", "old/x.go": "old/x.go", "OLD/X.go": "old/x.go"} {
		if got := q.Canonical(in); got != want {
			t.Errorf("with an earlier violation on README.md: Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
