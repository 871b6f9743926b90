package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogTail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := strings.Repeat("x", 100) + "\n" + "a\nb\n"
	tests := []struct {
		name            string
		path            string
		lines, maxBytes int
		want            string
	}{
		{"last lines", write("a.log", "1\n2\n3\n4\n"), 2, 1000, "3\n4"},
		{"whole short file", write("b.log", "only\n"), 5, 1000, "only"},
		{"byte bound drops the cut line", write("c.log", long), 10, 10, "a\nb"},
		{"ANSI codes and invalid UTF-8", write("d.log", "\x1b[31mred\x1b[0m \xff\n"), 5, 1000, "red \uFFFD"},
		{"missing file", filepath.Join(dir, "none.log"), 5, 1000, ""},
		{"a directory", dir, 5, 1000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LogTail(tt.path, tt.lines, tt.maxBytes); got != tt.want {
				t.Errorf("LogTail = %q, want %q", got, tt.want)
			}
		})
	}
}
