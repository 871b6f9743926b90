package findings

import (
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
