package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseCorpus parses one captured output of the corpus.
func parseCorpus(t *testing.T, c, file, command string, junit ...string) Result {
	t.Helper()
	dir := filepath.Join("testdata", "corpus", c)
	roots := strings.Fields(read(t, filepath.Join(dir, "out", "roots.txt")))
	f, err := os.Open(filepath.Join(dir, "out", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range junit {
		junit[i] = filepath.Join(dir, "out", junit[i])
	}
	return Parse(Spec{Command: command, Dir: ".", Roots: roots, Failed: true, JUnit: junit}, f)
}

// TestParseDetails pins what the parsers read from real outputs: whole
// multi-line messages, rules, locations, test identities, and no finding
// made of a summary line.
func TestParseDetails(t *testing.T) {
	tests := []struct {
		name, corpus, file, command string
		junit                       []string
		want                        []string // ident of each finding, in order
		message                     string   // the first finding's whole message
	}{
		{name: "mypy wrapped message", corpus: "mypy-wrapped", file: "work.txt", command: "mypy pkg",
			want:    []string{"pkg/encoding.py:11 return-value Incompatible", "pkg/encoding.py:15 comparison-overlap Non-overlapping"},
			message: "Incompatible return value type (got \"int\", expected\n\"str\")"},
		{name: "golangci-lint rule, no code excerpt, no count", corpus: "golangci-new", file: "work.txt", command: "golangci-lint run",
			want:    []string{"io.go:7 errcheck Error return value of `os.WriteFile` is not checked", "io.go:12 errcheck Error return value"},
			message: "Error return value of `os.WriteFile` is not checked"},
		{name: "eslint rules and severities", corpus: "eslint-shifted", file: "work.txt", command: "npx --no-install eslint .",
			want: []string{"app.js:7 no-unused-vars 'unused' is assigned", "app.js:8 no-console Unexpected console", "app.js:8 eqeqeq Expected", "app.js:9 no-console"}},
		{name: "pylint code, no rating", corpus: "pylint-shifted", file: "work.txt", command: "pylint shop.py",
			want: []string{"shop.py:14 C0200 Consider using enumerate"}},
		{name: "pytest failures by node id, no summary", corpus: "pytest-added-pass", file: "work.txt", command: "pytest",
			want:    []string{"test tests/test_calc.py test_old_division"},
			message: "def test_old_division():\n>       assert div(7, 2) == 3.5\nE       assert 3 == 3.5"},
		{name: "jest junit identities", corpus: "jest-added-pass", file: "work.txt", command: "npx jest", junit: []string{"work.junit.xml"},
			want: []string{"test math.test.js adds", "test math.test.js old broken rounding", "test math.test.js subtracts"}},
		{name: "jest text", corpus: "jest-added-pass", file: "work.txt", command: "npx jest",
			want: []string{"test math.test.js old broken rounding"}, message: "expect(received).toBe(expected) // Object.is equality"},
		{name: "go test panic", corpus: "gotest-masked", file: "work.txt", command: "go test ./...",
			want: []string{"test example.com/mask TestAOldCrash", "test example.com/mask TestAdd"}[:1], message: "panic: assignment to entry in nil map"},
		{name: "go test -json", corpus: "gotest-json-masked", file: "work.rerun.txt", command: "go test -json ./...",
			want: []string{"test example.com/mask TestAdd", "test example.com/mask TestMul"}, message: ""},
		{name: "cargo test", corpus: "cargo-failfast-masked", file: "work.txt", command: "cargo test -q",
			want: []string{"test --lib tests::old_broken"}, message: "thread 'tests::old_broken' (7897) panicked at src/lib.rs:13:9:"},
		{name: "make: lines, no summary", corpus: "make-k", file: "work.txt", command: "make -k test",
			want: []string{":0 check-a: old failure", ":0 make: *** [Makefile:4: test-a] Error 1", ":0 check-b: the new thing is broken",
				":0 make: *** [Makefile:7: test-b] Error 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parseCorpus(t, tt.corpus, tt.file, tt.command, tt.junit...)
			var got []string
			for _, f := range r.Findings {
				got = append(got, ident(f))
			}
			if len(got) < len(tt.want) {
				t.Fatalf("findings %q, want %q", got, tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("finding %d: %q, want %q...", i, got[i], w)
				}
			}
			if tt.message != "" && !strings.HasPrefix(r.Findings[0].Message, tt.message) {
				t.Errorf("message %q, want it to start %q", r.Findings[0].Message, tt.message)
			}
		})
	}
}
