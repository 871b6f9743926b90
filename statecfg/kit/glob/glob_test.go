package glob

import (
	"errors"
	"path"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.md", "README.md", true},
		{"*.md", "docs/a.md", false},
		{"**/*.md", "docs/a.md", true},
		{"**/*.md", "README.md", true},
		{"src/**/*.ts", "src/a.ts", true},
		{"src/**/*.ts", "src/x/y/a.ts", true},
		{"src/**/*.ts", "lib/a.ts", false},
		{"src/**", "src/x/y", true},
		{"openspec/changes/*/tasks.md", "openspec/changes/add-x/tasks.md", true},
		{"openspec/changes/*/tasks.md", "openspec/changes/a/b/tasks.md", false},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file/.txt", false},
		{"[ab].txt", "a.txt", true},
		{"[!ab].txt", "a.txt", false},
		{"[!ab].txt", "c.txt", true},
		{"[^ab].txt", "c.txt", true},
		{"[a-c].txt", "b.txt", true},
		{"[a-c].txt", "d.txt", false},
		{"[-a].txt", "-.txt", true},
		{"[a-].txt", "-.txt", true},
		{`[\].txt`, `\.txt`, true},
		{"[[].txt", "[.txt", true},
		{"[ä-ö]x", "öx", true},
		{"*.{js,ts}", "x.ts", true},
		{"*.{js,ts}", "x.go", false},
		{"{a,{b,c}}/x", "c/x", true},
		{"{a,b", "{a,b", true},
		{"a}b", "a}b", true},
		{"{{a}", "{a", true},
		{"ünï/*.txt", "ünï/cödé.txt", true},
		{"a+b(c)/*.txt", "a+b(c)/x.txt", true},
		{"[unclosed", "[unclosed", true},
		{"[]", "[]", true},
		// A malformed pattern matches nothing, and never panics.
		{"src/[z-a]", "src/b", false},
		{"[!]x", "ax", false},
		{"[!]x", "[!]x", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// Malformed patterns used to panic detect (regexp.MustCompile) and made the
// stop hook approve with error for good; Compile names what is wrong.
func TestCompileErrors(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{"src/[z-a]", `invalid glob "src/[z-a]": the range "z-a" in the class "[z-a]" is reversed`},
		{"[!]x", `invalid glob "[!]x": the class "[!]" is empty`},
		{"[^]x", `invalid glob "[^]x": the class "[^]" is empty`},
		{"{a,[9-0]}", `invalid glob "{a,[9-0]}": the range "9-0" in the class "[9-0]" is reversed`},
		{"[ö-ä]", `invalid glob "[ö-ä]": the range "ö-ä" in the class "[ö-ä]" is reversed`},
		{"a\xffb*", `invalid glob "a\xffb*": invalid UTF-8`},
		{strings.Repeat("{a,", 11) + strings.Repeat("}", 11), `invalid glob "` + strings.Repeat("{a,", 11) + strings.Repeat("}", 11) + `": alternatives {...} are nested deeper than 10`},
		{"x\n[z-a]", `invalid glob "x\n[z-a]": the range "z-a" in the class "[z-a]" is reversed`},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pattern)
		var ge *Error
		if p != nil || !errors.As(err, &ge) || err.Error() != tt.want {
			t.Errorf("Compile(%q) = %v, %v; want %q", tt.pattern, p, err, tt.want)
		}
	}
	for _, ok := range []string{"[a-a]", strings.Repeat("{a,", 10) + strings.Repeat("}", 10), strings.Repeat("{", 5000), "**/[!.]*"} {
		if _, err := Compile(ok); err != nil {
			t.Errorf("Compile(%q) = %v, want a pattern", ok, err)
		}
	}
}

// FuzzMatch: Compile and Match never panic; an error is one line naming the
// pattern; Match agrees with the compiled pattern; and where path.Match
// understands the pattern the same way (no **, {, \, or leading ! in a
// class), both agree.
func FuzzMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"src/[z-a]", "src/b"}, {"[!]x", "x"}, {"**/*.{go,md}", "a/b.go"}, {"[a-c]?/*", "b1/x"},
		{"{a,{b,[c-d]}}", "d"}, {"[]", "[]"}, {"*[", "x["}, {"[^a]", "b"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := Compile(pattern)
		got := Match(pattern, name)
		if err != nil {
			if got {
				t.Errorf("malformed %q matched %q", pattern, name)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "invalid glob ") {
				t.Errorf("error %q", msg)
			}
			return
		}
		if p.Match(name) != got {
			t.Fatalf("Match(%q, %q) = %v, compiled pattern disagrees", pattern, name, got)
		}
		if strings.Contains(pattern, "**") || strings.ContainsAny(pattern, `{}\`) || strings.Contains(pattern, "[!") {
			return
		}
		want, perr := path.Match(pattern, name)
		if perr == nil && want != got {
			t.Errorf("Match(%q, %q) = %v, path.Match says %v", pattern, name, got, want)
		}
	})
}

func TestFixedDir(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"*.go", "."},
		{"src/*.go", "src"},
		{"src/pkg/**/*.go", "src/pkg"},
		{"a/{x,y}/*", "a"},
		{"**/vendor", "."},
		{"a/b/c", "a/b"},
		{"a[bc]/d", "."},
	} {
		if got := FixedDir(tt.in); got != tt.want {
			t.Errorf("FixedDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
