package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"golang.org/x/text/unicode/norm"
	"pgregory.net/rapid"
)

// nameTokens are the pieces of the file names drawn below: ASCII, letters
// with accents composed (NFC) and decomposed (NFD), Hangul as syllables
// and as jamo, a letter with two canonical spellings of one accent,
// blanks inside a name, quotes, backslashes, tabs, newlines and emoji.
var nameTokens = []string{
	"a", "b", "x", "Z", "1", "-", "_", ".",
	"é", "e\u0301", "ü", "u\u0308", "Å", "A\u030a", "\u212b",
	"한", "\u1112\u1161\u11ab", "ñ", "n\u0303",
	" ", `"`, `\`, "\t", "\n", "🙂", "👍🏽",
}

// drawOddName draws a name of one path element from nameTokens: never
// "." nor "..", no blanks at its ends.
func drawOddName(rt *rapid.T, label string) string {
	s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(nameTokens), 1, 6).Draw(rt, label), "")
	if strings.Trim(s, ".") == "" || strings.TrimSpace(s) != s {
		s = "f" + strings.TrimSpace(s) + "x"
	}
	return s
}

// gitQuote writes p as git prints a path it quotes (core.quotePath).
func gitQuote(p string) string {
	need := false
	for i := 0; i < len(p); i++ {
		need = need || p[i] < 0x20 || p[i] == '"' || p[i] == '\\' || p[i] >= 0x7f
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// drawUnicodeSpelling draws a way a reviewer writes the diff's path f:
// as git prints it, retyped in NFC or NFD, quoted in either, with "./",
// "b/" or the project root before it, or in another case.
func drawUnicodeSpelling(rt *rapid.T, root, f string) string {
	nfc, nfd := norm.NFC.String(f), norm.NFD.String(f)
	forms := []func() string{
		func() string { return f },
		func() string { return gitQuote(f) },
		func() string { return nfc },
		func() string { return nfd },
		func() string { return gitQuote(nfc) },
		func() string { return gitQuote(nfd) },
		func() string { return "./" + nfc },
		func() string { return "b/" + nfd },
		func() string { return gitQuote("b/" + nfc) },
		func() string { return root + "/" + nfc },
		func() string { return strings.ToUpper(nfc) },
	}
	return forms[rapid.IntRange(0, len(forms)-1).Draw(rt, "form")]()
}

// Invariant: a violation the reviewer reports is never dropped silently.
// Whatever spelling of a changed path it uses (git's quoted form, Unicode
// NFC or NFD, another case, a prefix), it is that path's finding; a path
// that names no changed file and nothing in the project (it cannot be
// placed) is kept too. Only a finding on a file of the project the
// change does not touch, or on a line it does not touch, is out of scope.
func TestUnicodeSpellingsOfAPath(t *testing.T) {
	root := t.TempDir()
	const unchanged = "lib/old.go"
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, unchanged), []byte(strings.Repeat("line\n", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	const issue = "The line holds the marker the review forbids"
	rapid.Check(t, func(rt *rapid.T) {
		f := "src/" + drawOddName(rt, "name")
		other := "other/unrelated.go"
		spelling := drawUnicodeSpelling(rt, root, f)
		changed := parse.ParseDiff(fmt.Sprintf("diff --git %[1]s %[2]s\nnew file mode 100644\n--- /dev/null\n+++ %[2]s\n@@ -0,0 +1,8 @@\n+1\n+2\n+3\n+4\n+5\n+6\n+7\n+8\n"+
			"diff --git a/%[3]s b/%[3]s\n--- a/%[3]s\n+++ b/%[3]s\n@@ -1 +1,2 @@\n x\n+y\n",
			gitQuote("a/"+f), gitQuote("b/"+f), other))
		if !changed.Has(f) {
			rt.Fatalf("the diff of %q names %q", f, changed.Files())
		}

		// a report on a line the diff adds, in any spelling: open, under f
		ev := evaluate(evalInput{text: failAnswer(viol(spelling, 7, issue, "high")), changed: changed, root: root})
		if ev.status != gate.StatusFail || len(ev.open) != 1 || ev.open[0].File != f {
			rt.Fatalf("%q reported as %q: status %s, open %+v, notes %q", f, spelling, ev.status, ev.open, ev.notes)
		}

		// a report on a file that is nowhere: kept, never filtered
		nowhere := "gone/" + drawOddName(rt, "missing")
		ev = evaluate(evalInput{text: failAnswer(viol(drawUnicodeSpelling(rt, root, nowhere), 7, issue, "high")), changed: changed, root: root})
		if ev.status != gate.StatusFail || len(ev.open) != 1 {
			rt.Fatalf("a report on %q, a file that is nowhere: status %s, open %+v, notes %q", nowhere, ev.status, ev.open, ev.notes)
		}

		// a report on a file of the project the change leaves alone: out of scope
		ev = evaluate(evalInput{text: failAnswer(viol(unchanged, 7, issue, "high")), changed: changed, root: root})
		if ev.status != gate.StatusPass || len(ev.open) != 0 {
			rt.Fatalf("a report on the unchanged %q: status %s, open %+v", unchanged, ev.status, ev.open)
		}
	})
}
