package review

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
	"pgregory.net/rapid"
)

// twinTokens are pieces of names whose case or Unicode form a reviewer
// may retype: letters with and without a case, composed and decomposed
// accents, fullwidth letters, ß and ẞ, the Turkish dotted and dotless i,
// Greek sigma in its three forms, ligatures, the Kelvin and Ångström
// signs, Hangul syllables and jamo.
var twinTokens = []string{
	"a", "R", "e", "ME", "x", "1", "-", ".",
	"é", "e\u0301", "É", "E\u0301", "ü", "Å", "\u212b", "\u212a",
	"ｒ", "ＥＡＤ", "ß", "ẞ", "SS", "İ", "ı", "I", "i",
	"Σ", "σ", "ς", "ﬁ", "ﬀ", "ſ", "한", "\u1112\u1161\u11ab",
}

// drawTwinName draws a name of one path element from twinTokens.
func drawTwinName(rt *rapid.T, label string) string {
	s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(twinTokens), 1, 5).Draw(rt, label), "")
	if strings.Trim(s, ".") == "" {
		s = "f" + s
	}
	return s
}

// fullwidth writes the ASCII letters and digits of s in their fullwidth
// forms (U+FF21...), as a name typed on an East Asian keyboard.
func fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r + 0xFEE0
		}
		return r
	}, s)
}

// retypings are the ways a reviewer retypes a name's letters: Unicode
// forms, case mappings (simple and full, Turkish ones too), case folding,
// title case and fullwidth letters.
var retypings = map[string]func(string) string{
	"NFC":          norm.NFC.String,
	"NFD":          norm.NFD.String,
	"NFKC":         norm.NFKC.String,
	"NFKD":         norm.NFKD.String,
	"ToUpper":      strings.ToUpper,
	"ToLower":      strings.ToLower,
	"Upper":        func(s string) string { return cases.Upper(language.Und).String(s) },
	"Lower":        func(s string) string { return cases.Lower(language.Und).String(s) },
	"TurkishUpper": func(s string) string { return cases.Upper(language.Turkish).String(s) },
	"TurkishLower": func(s string) string { return cases.Lower(language.Turkish).String(s) },
	"Title":        func(s string) string { return cases.Title(language.Und).String(s) },
	"Fold":         func(s string) string { return cases.Fold().String(s) },
	"fullwidth":    fullwidth,
}

// drawRetyped is f retyped by one to three retypings (in the order
// drawn), and their names.
func drawRetyped(rt *rapid.T, f, label string) (string, []string) {
	names := make([]string, 0, len(retypings))
	for n := range retypings {
		names = append(names, n)
	}
	slices.Sort(names) // map order must not reach the generator
	used := rapid.SliceOfN(rapid.SampledFrom(names), 1, 3).Draw(rt, label)
	for _, n := range used {
		f = retypings[n](f)
	}
	return f, used
}

// jsonViol is one violation of an answer, its file written by JSON.
func jsonViol(file string, line int) string {
	f, _ := json.Marshal(file)
	return fmt.Sprintf(`{"file":%s,"line":%d,"issue":"The line holds the marker the review forbids","fix":"f","priority":"high","status":"new"}`, f, line)
}

// newFilesDiff is a diff adding each of files with eight lines, and one
// line to an unrelated file.
func newFilesDiff(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "diff --git %s %s\nnew file mode 100644\n--- /dev/null\n+++ %s\n@@ -0,0 +1,8 @@\n+1\n+2\n+3\n+4\n+5\n+6\n+7\n+8\n",
			gitQuote("a/"+f), gitQuote("b/"+f), gitQuote("b/"+f))
	}
	b.WriteString("diff --git a/other/unrelated.go b/other/unrelated.go\n--- a/other/unrelated.go\n+++ b/other/unrelated.go\n@@ -1 +1,2 @@\n x\n+y\n")
	return b.String()
}

// writeProjectFile creates the project file f (and its directories)
// below root.
func writeProjectFile(t interface{ Fatalf(string, ...any) }, root, f string) {
	p := filepath.Join(root, filepath.FromSlash(f))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	if err := os.WriteFile(p, []byte(strings.Repeat("line\n", 10)), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
}

// Invariant: a reviewer's finding is dropped as out of scope only when
// its path names no changed path under any of the matchings used (exact,
// git's quoting, a prefix, NFC, NFKC, case mappings and folding, and
// their combinations). A spelling that names a changed path under one
// matching and another file of the project, unchanged, under another
// (exactly, say: "src/README.txt" on disk and unchanged, "src/readme.txt"
// added) is the changed path's finding; one that names several changed
// paths is kept and fails the review. Never filtered.
//
// The generator draws a changed name, a retyped spelling of it, and a
// project holding unchanged files at other retypings of the name (often
// at the spelling itself), with or without a second changed twin.
func TestRetypedSpellingOfAChangedPathIsNeverFiltered(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "twins")
		if err != nil {
			rt.Fatalf("%v", err)
		}
		defer func() { _ = os.RemoveAll(root) }()

		dir := rapid.SampledFrom([]string{"src", "Src", "ｓｒｃ", "İç"}).Draw(rt, "dir")
		f := dir + "/" + drawTwinName(rt, "name")
		whole := rapid.Bool().Draw(rt, "retype the directory too")
		retype := func(label string) (string, []string) {
			if whole {
				return drawRetyped(rt, f, label)
			}
			base, how := drawRetyped(rt, f[len(dir)+1:], label)
			return dir + "/" + base, how
		}
		spelling, how := retype("spelling")

		changed := []string{f}
		if rapid.IntRange(0, 3).Draw(rt, "second changed twin") == 0 {
			if twin, _ := retype("twin"); twin != f {
				changed = append(changed, twin)
			}
		}
		onDisk := append([]string(nil), changed...)
		if rapid.Bool().Draw(rt, "the spelling names an unchanged file") && spelling != f {
			onDisk = append(onDisk, spelling)
		}
		for i := rapid.IntRange(0, 2).Draw(rt, "unchanged twins"); i > 0; i-- {
			other, _ := retype("unchanged")
			onDisk = append(onDisk, other)
		}
		for _, p := range onDisk {
			writeProjectFile(rt, root, p)
		}

		written := rapid.SampledFrom([]func(string) string{
			func(s string) string { return s },
			gitQuote,
			func(s string) string { return "./" + s },
			func(s string) string { return "b/" + s },
			func(s string) string { return gitQuote("b/" + s) },
			func(s string) string { return root + "/" + s },
			func(s string) string { return strings.ReplaceAll(s, "/", `\`) },
			func(s string) string { return "/home/ci/checkout/" + s },
		}).Draw(rt, "written as")(spelling)

		diff := parse.ParseDiff(newFilesDiff(changed...))
		for _, c := range changed {
			if !diff.Has(c) {
				rt.Fatalf("the diff of %q names %q", changed, diff.Files())
			}
		}
		ev := evaluate(evalInput{text: failAnswer(jsonViol(written, 7)), changed: diff, root: root})
		if ev.status != gate.StatusFail || len(ev.open) != 1 {
			rt.Fatalf("changed %q, on disk %q, reported as %q (%v): status %s, open %+v, notes %q",
				changed, onDisk, written, how, ev.status, ev.open, ev.notes)
		}
		if len(changed) == 1 && ev.open[0].File != f {
			rt.Fatalf("changed %q, on disk %q, reported as %q (%v): kept under %q, not the changed path",
				changed, onDisk, written, how, ev.open[0].File)
		}
	})
}

// The break the generator found first, as a table: the spelling names an
// unchanged file exactly and the changed one in another case or form.
// The line is one the diff adds, except where line says otherwise: a
// spelling of several changed paths is kept on any line, one of a single
// changed path only on a line the diff touches.
func TestRetypedSpellingTwins(t *testing.T) {
	for _, tt := range []struct {
		name               string
		changed, unchanged []string
		spelling           string
		want               string // "" when it names several: kept, under any path
		line               int    // 7 when 0
		filtered           bool
	}{
		{"upper case of an added name", []string{"src/readme.txt"}, []string{"src/README.txt"}, "src/README.txt", "src/readme.txt", 0, false},
		{"NFKC of a fullwidth name", []string{"src/ＲＥＡＤＭＥ.txt"}, []string{"src/README.txt"}, "src/README.txt", "src/ＲＥＡＤＭＥ.txt", 0, false},
		{"ß retyped SS", []string{"src/straße.txt"}, []string{"src/STRASSE.txt"}, "src/STRASSE.txt", "src/straße.txt", 0, false},
		{"dotless ı retyped I", []string{"src/ılık.txt"}, []string{"src/ILIK.txt"}, "src/ILIK.txt", "src/ılık.txt", 0, false},
		{"dotted İ retyped i", []string{"src/İzmir.txt"}, []string{"src/izmir.txt"}, "src/izmir.txt", "src/İzmir.txt", 0, false},
		{"final sigma", []string{"src/λόγος.txt"}, []string{"src/ΛΌΓΟΣ.txt"}, "src/ΛΌΓΟΣ.txt", "src/λόγος.txt", 0, false},
		{"ligature", []string{"src/ﬁle.txt"}, []string{"src/FILE.txt"}, "src/FILE.txt", "src/ﬁle.txt", 0, false},
		{"base name in another case", []string{"src/readme.txt"}, []string{"README.txt"}, "README.txt", "src/readme.txt", 0, false},
		{"two changed twins", []string{"src/readme.txt", "src/Readme.txt"}, []string{"src/README.txt"}, "src/README.txt", "", 0, false},
		{"NFC twins, exact spelling of one", []string{"src/caf\u00e9", "src/cafe\u0301"}, nil, "src/caf\u00e9", "", 0, false},
		{"two changed twins, a line neither adds", []string{"src/readme.txt", "src/Readme.txt"}, []string{"src/README.txt"}, "src/README.txt", "", 30, false},
		{"one changed twin, a line it does not add", []string{"src/readme.txt"}, []string{"src/README.txt"}, "src/README.txt", "", 30, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range append(append([]string(nil), tt.changed...), tt.unchanged...) {
				writeProjectFile(t, root, p)
			}
			diff := parse.ParseDiff(newFilesDiff(tt.changed...))
			line := tt.line
			if line == 0 {
				line = 7
			}
			ev := evaluate(evalInput{text: failAnswer(jsonViol(tt.spelling, line)), changed: diff, root: root})
			if tt.filtered {
				if ev.status != gate.StatusPass || len(ev.open) != 0 {
					t.Fatalf("a line the diff does not touch: status %s, open %+v", ev.status, ev.open)
				}
				return
			}
			if ev.status != gate.StatusFail || len(ev.open) != 1 {
				t.Fatalf("status %s, open %+v, notes %q", ev.status, ev.open, ev.notes)
			}
			if tt.want != "" && ev.open[0].File != tt.want {
				t.Errorf("kept under %q, want %q", ev.open[0].File, tt.want)
			}
		})
	}
}

// A skip the agent decided on a file the change no longer touches
// (src/README.txt, the person's) stays that file's: a finding retyped as
// that name is the changed twin's (src/readme.txt, added with the same
// line), and the skip made for the other file never covers it.
func TestRecordsKeepTheirOwnFile(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"src/readme.txt", "src/README.txt"} {
		writeProjectFile(t, root, p)
	}
	const issue = "The line holds the marker the review forbids"
	anchor := fingerprint.NewSource(root).Anchor("src/README.txt", 7)
	if anchor == "" || anchor != fingerprint.NewSource(root).Anchor("src/readme.txt", 7) {
		t.Fatalf("the twins' line 7 must read alike: anchor %q", anchor)
	}
	skip := gate.Skip{ID: "x1", File: "src/README.txt", Line: 7, Anchor: anchor, Issue: issue, Note: "the person's file"}
	ev := evaluate(evalInput{text: failAnswer(jsonViol("src/README.txt", 7)), changed: parse.ParseDiff(newFilesDiff("src/readme.txt")),
		root: root, skips: []gate.Skip{skip}})
	if ev.status != gate.StatusFail || len(ev.open) != 1 || ev.open[0].File != "src/readme.txt" {
		t.Fatalf("status %s, open %+v, skipped %+v, notes %q", ev.status, ev.open, ev.skipped, ev.notes)
	}
}
