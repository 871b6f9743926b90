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
		lines, cut := OutputTail(write(tc.log), 0, tc.max)
		if got := strings.Join(lines, "|"); got != tc.want || cut != tc.cut {
			t.Errorf("%s: %q cut %v, want %q cut %v", tc.name, got, cut, tc.want, tc.cut)
		}
	}
	big := header + strings.Repeat("0123456789\n", 20000) + "last\n\nResult: fail - Exited with code 1\n"
	lines, cut := OutputTail(write(big), 0, 3)
	if strings.Join(lines, "|") != "0123456789|0123456789|last" || !cut {
		t.Errorf("big log: %q %v", lines, cut)
	}
	if lines, _ := OutputTail(filepath.Join(dir, "missing.log"), 0, 3); lines != nil {
		t.Errorf("missing log: %q", lines)
	}
}

// With an end, what follows the command's output in the log (the base run
// of a baseline, its verdict, the result line) is not its output, however
// long.
func TestOutputTailEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.log")
	own := "[2026-01-01T00:00:00Z] Starting check: lint\nExecuting command: make lint\nWorking directory: .\n\nmine: error\n"
	after := "\n--- The same check on the base ---\n" + strings.Repeat("base: error\n", 10000) + "Baseline: new.\n\nResult: fail - Exited with code 1\n"
	if err := os.WriteFile(p, []byte(own+after), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, cut := OutputTail(p, int64(len(own)), 5); strings.Join(lines, "|") != "mine: error" || cut {
		t.Errorf("own output: %q cut %v", lines, cut)
	}
	// An end beyond the file (it was truncated since) reads the whole log.
	if lines, _ := OutputTail(p, 1<<40, 1); strings.Join(lines, "|") != "Baseline: new." {
		t.Errorf("end beyond the log: %q", lines)
	}
}
