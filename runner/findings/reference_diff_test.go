package findings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// corpusLines are the captured outputs of the corpus, each split into
// lines: the vocabulary generated outputs are made of.
func corpusLines(t testing.TB) [][]string {
	outs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "out", "*.txt"))
	var all [][]string
	for _, p := range outs {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			all = append(all, strings.Split(string(b), "\n"))
		}
	}
	if len(all) == 0 {
		t.Fatal("no corpus outputs")
	}
	return all
}

// outputGen generates outputs within the bounds of a result: runs of
// lines cut from the corpus's real outputs (so that every format's
// structure shows), joined, some lines coloured, ended with \r\n, blank,
// or made long, the whole sometimes without its last line end.
func outputGen(corpus [][]string) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		for range rapid.IntRange(0, 4).Draw(t, "runs") {
			out := corpus[rapid.IntRange(0, len(corpus)-1).Draw(t, "output")]
			from := rapid.IntRange(0, len(out)-1).Draw(t, "from")
			to := rapid.IntRange(from, min(len(out), from+80)).Draw(t, "to")
			for _, l := range out[from:to] {
				switch rapid.IntRange(0, 19).Draw(t, "shape") {
				case 0:
					l = "\x1b[31m" + l + "\x1b[0m"
				case 1:
					l += "\r"
				case 2:
					l = ""
				case 3:
					l += strings.Repeat(" padding", rapid.IntRange(0, MaxLineBytes/4).Draw(t, "long"))
				}
				b.WriteString(l + "\n")
			}
		}
		s := b.String()
		if rapid.Bool().Draw(t, "no last line end") {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	})
}

// specGen generates how a check ran: any format, or one recognised from a
// command.
func specGen() *rapid.Generator[Spec] {
	commands := []string{"go test ./...", "go test -json ./...", "go vet ./...", "golangci-lint run", "pytest -x", "npx jest",
		"cargo test", "npx eslint .", "npx tsc --noEmit", "mypy pkg", "make test", "sh loud.sh", "ruff check ."}
	return rapid.Custom(func(t *rapid.T) Spec {
		s := Spec{Dir: ".", Roots: []string{"/tmp/root"}, Failed: rapid.Bool().Draw(t, "failed")}
		if rapid.Bool().Draw(t, "named format") {
			s.Format = rapid.SampledFrom(Formats()).Draw(t, "format")
		}
		s.Command = rapid.SampledFrom(commands).Draw(t, "command")
		return s
	})
}

// TestParseAgreesWithReference: within the bounds of a result, Parse
// reads every output as the parser before the bounds stopped it did
// (referenceParse): the same findings, in the same order, the same stops,
// format and problem; and so the same verdict against any base.
func TestParseAgreesWithReference(t *testing.T) {
	corpus := corpusLines(t)
	rapid.Check(t, func(t *rapid.T) {
		spec := specGen().Draw(t, "spec")
		work := outputGen(corpus).Draw(t, "work")
		base := outputGen(corpus).Draw(t, "base")
		got, want := Parse(spec, strings.NewReader(work)), referenceParse(spec, strings.NewReader(work))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse and the reference differ:\n got %+v\nwant %+v", got, want)
		}
		gotBase, wantBase := Parse(spec, strings.NewReader(base)), referenceParse(spec, strings.NewReader(base))
		diff := ParseDiff("")
		if g, w := Compare(gotBase, got, diff), Compare(wantBase, want, diff); !reflect.DeepEqual(g, w) {
			t.Fatalf("the verdicts differ:\n got %+v\nwant %+v", g, w)
		}
	})
}

// TestReadLinesAgreesWithReference: the batched line reader reads the
// same lines as one reading line by line, whatever the lengths of the
// lines against the reader's buffer and MaxLineBytes.
func TestReadLinesAgreesWithReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(0, 50).Draw(t, "lines") {
			n := rapid.SampledFrom([]int{0, 1, 2, 80, batchBytes - 1, batchBytes, MaxLineBytes - 1, MaxLineBytes, MaxLineBytes + 1, 70 << 10}).Draw(t, "length")
			l := strings.Repeat("x", n)
			if n > 0 && rapid.Bool().Draw(t, "cr") {
				l = l[:n-1] + "\r"
			}
			b.WriteString(l)
			if rapid.IntRange(0, 9).Draw(t, "end") > 0 {
				b.WriteString(rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "line end"))
			}
		}
		got, gotCut, gotErr := readLines(strings.NewReader(b.String()))
		want, wantCut, wantErr := refReadLines(strings.NewReader(b.String()))
		if !reflect.DeepEqual(got, want) || (gotCut != "") != wantCut || gotErr != wantErr {
			t.Fatalf("readLines: %d lines, cut %q, %v; the reference: %d lines, cut %v, %v", len(got), gotCut, gotErr, len(want), wantCut, wantErr)
		}
	})
}

// FuzzParseReference holds Parse to the reference on arbitrary outputs
// (which the fuzzer keeps far below the bounds).
func FuzzParseReference(f *testing.F) {
	corpusSeeds(f, func(s string) { f.Add(s, 0) })
	f.Add("x.go:1:2: msg\n\x1b[31mFAIL\x1b[0m\r\n", 5)
	formats := append([]string{FormatAuto}, Formats()...)
	f.Fuzz(func(t *testing.T, out string, which int) {
		if which < 0 {
			which = -which
		}
		spec := Spec{Format: formats[which%len(formats)], Command: "make test", Dir: ".", Roots: []string{"/tmp/root"}, Failed: which%2 == 0}
		if got, want := Parse(spec, strings.NewReader(out)), referenceParse(spec, strings.NewReader(out)); !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse and the reference differ:\n got %+v\nwant %+v", got, want)
		}
	})
}
