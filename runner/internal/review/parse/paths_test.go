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
