package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusSeeds adds every captured output of the corpus to f.
func corpusSeeds(f *testing.F, add func(string)) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "out", "*.txt"))
	for _, p := range outs {
		if b, err := os.ReadFile(p); err == nil {
			add(string(b))
		}
	}
}

// FuzzParse feeds every format arbitrary output: it never panics, keeps
// within its bounds, and every finding it makes is well formed (a kind, a
// known severity, lines and columns not negative, tests named or failed
// packages, valid UTF-8 in, valid UTF-8 out).
func FuzzParse(f *testing.F) {
	corpusSeeds(f, func(s string) { f.Add(s, 0) })
	f.Add("x.go:1:2: msg\n\tcontinued\n", 3)
	f.Add("{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"T\"}\n", 1)
	formats := Formats()
	f.Fuzz(func(t *testing.T, out string, which int) {
		if which < 0 {
			which = -which
		}
		format := formats[which%len(formats)]
		r := Parse(Spec{Format: format, Dir: ".", Roots: []string{"/tmp/root"}, Failed: which%2 == 0}, strings.NewReader(out))
		if len(r.Findings) > MaxFindings {
			t.Fatalf("%d findings", len(r.Findings))
		}
		for _, x := range r.Findings {
			switch {
			case x.Kind != KindDiagnostic && x.Kind != KindTest && x.Kind != KindLine:
				t.Fatalf("kind %q", x.Kind)
			case x.Severity != SeverityError && x.Severity != SeverityWarning && x.Severity != SeverityNote:
				t.Fatalf("severity %q", x.Severity)
			case x.Line < 0 || x.Column < 0:
				t.Fatalf("position %d:%d", x.Line, x.Column)
			case x.Kind == KindTest && x.Status != StatusPassed && x.Status != StatusFailed && x.Status != StatusSkipped:
				t.Fatalf("status %q", x.Status)
			case len(x.Message) > MaxMessageBytes+8:
				t.Fatalf("message of %d bytes", len(x.Message))
			case utf8.ValidString(out) && !utf8.ValidString(x.Message):
				t.Fatalf("message %q is not UTF-8", x.Message)
			}
		}
		// The verdict of a run against itself: nothing is new.
		v := Compare(r, r, ParseDiff(""))
		if len(r.Stops) == 0 && !r.Truncated && r.Problem == "" && len(v.New) > 0 {
			t.Fatalf("a run compared with itself has new findings: %+v", v.New)
		}
	})
}

// FuzzDiff reads arbitrary diffs without panicking; a line the diff maps
// from the old side is never one it calls changed.
func FuzzDiff(f *testing.F) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "out", "diff.txt"))
	for _, p := range outs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b), 3)
		}
	}
	f.Add("+++ b/x\n@@ -1,2 +1,3 @@\n", 2)
	f.Add("+++ b/x\n@@ -a +b @@\n", 1)
	f.Fuzz(func(t *testing.T, diff string, line int) {
		d := ParseDiff(diff)
		for file := range d.files {
			if to, ok := d.MapLine(file, line); ok && line > 0 && d.Changed(file, to) {
				t.Fatalf("%s: old line %d maps to %d, which is changed", file, line, to)
			}
		}
	})
}

// FuzzJUnit reads arbitrary JUnit files without panicking; every test it
// finds has a status.
func FuzzJUnit(f *testing.F) {
	xmls, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "out", "*.junit.xml"))
	for _, p := range xmls {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`<testsuite><testcase name="a"><failure message="m">x</failure></testcase></testsuite>`)
	f.Fuzz(func(t *testing.T, doc string) {
		p := filepath.Join(t.TempDir(), "j.xml")
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		r := Parse(Spec{Format: FormatJUnit, JUnit: []string{p}}, strings.NewReader(""))
		for _, x := range r.Findings {
			if x.Kind != KindTest || x.Status == "" {
				t.Fatalf("finding %+v", x)
			}
		}
	})
}
