package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputTail(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		p := filepath.Join(dir, "c.log")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := "[2026-01-01T00:00:00Z] Starting check: lint\nExecuting command: make lint\nWorking directory: src\n\n"
	for _, tc := range []struct {
		name, log string
		max       int
		want      string
		cut       bool
	}{
		{"output only", header + "a\nb\nc\n\nResult: fail - Exited with code 1\n", 10, "a|b|c", false},
		{"last lines", header + "a\nb\nc\n\nResult: fail - Exited with code 1\n", 2, "b|c", true},
		{"fix instructions left out", header + "boom\n\nResult: fail - Exited with code 2\n\n--- Fix Instructions ---\nRun make fmt.\n", 10, "boom", false},
		{"no output", header + "\nResult: fail - Timed out after 1s\n", 10, "", false},
		{"a forged result line in the output stays output", header + "Result: pass - fine\nreal\n\nResult: fail - Exited with code 1\n", 10, "Result: pass - fine|real", false},
	} {
		lines, cut := OutputTail(write(tc.log), tc.max)
		if got := strings.Join(lines, "|"); got != tc.want || cut != tc.cut {
			t.Errorf("%s: %q cut %v, want %q cut %v", tc.name, got, cut, tc.want, tc.cut)
		}
	}
	big := header + strings.Repeat("0123456789\n", 20000) + "last\n\nResult: fail - Exited with code 1\n"
	lines, cut := OutputTail(write(big), 3)
	if strings.Join(lines, "|") != "0123456789|0123456789|last" || !cut {
		t.Errorf("big log: %q %v", lines, cut)
	}
	if lines, _ := OutputTail(filepath.Join(dir, "missing.log"), 3); lines != nil {
		t.Errorf("missing log: %q", lines)
	}
}
