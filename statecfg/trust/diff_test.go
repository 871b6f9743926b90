package trust

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	trusted := files(".gauntlet/a", "1", ".gauntlet/b", "2", ".gauntlet/c", "3")
	work := files(".gauntlet/a", "1", ".gauntlet/b", "two", ".gauntlet/d", "4")
	want := Diff{Added: []string{".gauntlet/d"}, Removed: []string{".gauntlet/c"}, Changed: []string{".gauntlet/b"}}
	if got := Compare(trusted, work); !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %+v, want %+v", got, want)
	}
	if !Compare(trusted, trusted).Empty() {
		t.Errorf("a configuration differs from itself")
	}
	if got := Compare(files(".gauntlet/a", ""), files(".gauntlet/a\n[PASS]", "")).String(); strings.Contains(got, "\n") {
		t.Errorf("a path broke the line: %q", got)
	}
}

// lineDiff is an edit script: its kept and removed lines are the old
// text, its kept and added lines the new one, for any two texts.
func TestLineDiffIsAnEditScript(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "", "command: x"}
	gen := func() []string {
		lines := make([]string, r.IntN(12))
		for i := range lines {
			lines[i] = words[r.IntN(len(words))]
		}
		return lines
	}
	for range 2000 {
		a, b := gen(), gen()
		var gotA, gotB []string
		for _, o := range lineDiff(a, b) {
			if o.kind != '+' {
				gotA = append(gotA, o.line)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.line)
			}
		}
		if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotA) != len(a) || len(gotB) != len(b) {
			t.Fatalf("lineDiff(%q, %q) does not rebuild them", a, b)
		}
	}
}

func TestTextDiff(t *testing.T) {
	got := TextDiff(".gauntlet/checks/lint.yml", []byte("a\nb\ncommand: make lint\nc\nd\ne\nf\n"), []byte("a\nb\ncommand: \"true\"\nc\nd\ne\nf\n"), 40)
	want := []string{
		"--- trusted .gauntlet/checks/lint.yml",
		"+++ work tree .gauntlet/checks/lint.yml",
		"@@ -1 +1 @@",
		" a",
		" b",
		"-command: make lint",
		"+command: \"true\"",
		" c",
		" d",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TextDiff =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every line TextDiff returns is safe on a terminal: an escape sequence
// that would erase or overwrite what the person reads is shown quoted.
func TestTextDiffIsSafeOnATerminal(t *testing.T) {
	evil := "command: \"true\"\r\x1b[2K\x1b[1Acommand: make lint\u2028"
	for _, lines := range [][]string{
		TextDiff(".gauntlet/x", []byte("command: make lint\n"), []byte(evil+"\n"), 40),
		TextDiff(".gauntlet/x\x1b[2K", nil, []byte("a"), 40),
		{Diff{Changed: []string{".gauntlet/\x1b]0;title\a"}}.String()},
	} {
		for _, l := range lines {
			if strings.ContainsAny(l, "\r\x1b\a\n\u2028") {
				t.Errorf("unsafe line %q", l)
			}
		}
	}
}

func TestTextDiffBounds(t *testing.T) {
	long := strings.Repeat("x\n", 2000)
	if got := TextDiff("p", []byte(long), []byte(long+"y\n"), 40); len(got) != 3 || !strings.Contains(got[2], "too long") {
		t.Errorf("a long file: %q", got)
	}
	if got := TextDiff("p", []byte("a"), []byte("\xff"), 40); len(got) != 3 || !strings.Contains(got[2], "binary") {
		t.Errorf("binary content: %q", got)
	}
	many := strings.Repeat("y\n", 100)
	if got := TextDiff("p", nil, []byte(many), 10); len(got) != 13 || got[0] != "--- (not trusted before)" || got[12] != "(91 more lines of diff)" {
		t.Errorf("a capped diff: %q", got)
	}
}
