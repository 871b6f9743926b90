package findings

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParseCorpus parses the largest captured output of the corpus.
func BenchmarkParseCorpus(b *testing.B) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "out", "*.txt"))
	var big string
	var name string
	for _, p := range outs {
		if data, err := os.ReadFile(p); err == nil && len(data) > len(big) {
			big, name = string(data), p
		}
	}
	cmd := map[string]string{"gotest-json-masked": "go test -json ./..."}[filepath.Base(filepath.Dir(filepath.Dir(name)))]
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		Parse(Spec{Command: cmd, Dir: ".", Failed: true}, strings.NewReader(big))
	}
}

// BenchmarkParseLarge parses 20,000 go vet findings with a multi-line
// format's continuation rules (tsc) and as go vet.
func BenchmarkParseLarge(b *testing.B) {
	var sb strings.Builder
	for i := range 20_000 {
		sb.WriteString("pkg/file.go:")
		sb.WriteString(strings.Repeat("1", 1+i%4))
		sb.WriteString(":2: unreachable code\n")
	}
	in := sb.String()
	for _, f := range []string{"govet", "tsc", FormatText} {
		b.Run(f, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Parse(Spec{Format: f, Dir: ".", Failed: true}, strings.NewReader(in))
			}
		})
	}
}

// repeated is size bytes of pattern, again and again, as a reader (the
// log of a check that printed them), without holding them.
type repeated struct {
	pattern string
	left    int
	at      int
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		c := copy(p[n:min(len(p), n+r.left)], r.pattern[r.at:])
		n, r.left, r.at = n+c, r.left-c, (r.at+c)%len(r.pattern)
	}
	return n, nil
}

// BenchmarkParseOutput parses the output of a failing check that printed
// 1 MB or 100 MB: plain lines that each tell of an error (a finding each),
// plain lines that tell nothing (a finding each too), go vet's diagnostics
// (streamed through errorformat) and go test -v's output (held whole by its
// parser).
func BenchmarkParseOutput(b *testing.B) {
	kinds := []struct {
		name    string
		spec    Spec
		pattern string
	}{
		{"text-errors", Spec{Command: "sh loud.sh"}, "src/a.go:12:3: something is wrong here\n"},
		{"text-plain", Spec{Command: "sh loud.sh"}, "loud check output: padding padding padding padding padding\n"},
		{"govet", Spec{Command: "go vet ./..."}, "pkg/file.go:12:2: unreachable code\n"},
		{"gotest", Spec{Command: "go test -v ./..."}, "=== RUN   TestX\n    x_test.go:12: a line the test logs\n--- PASS: TestX (0.00s)\n"},
	}
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1MB", 1_000_000}, {"100MB", 100_000_000}} {
		for _, k := range kinds {
			b.Run(size.name+"/"+k.name, func(b *testing.B) {
				spec := k.spec
				spec.Dir, spec.Roots, spec.Failed = ".", []string{"/tmp/project"}, true
				b.SetBytes(int64(size.bytes))
				b.ReportAllocs()
				for b.Loop() {
					Parse(spec, &repeated{pattern: k.pattern, left: size.bytes})
				}
			})
		}
	}
}
