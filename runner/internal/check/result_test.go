package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLastResult(t *testing.T) {
	big := strings.Repeat("noise line\n", 20000) // beyond the 64 KiB tail
	tests := []struct {
		name, log, want string
	}{
		{"pass", "Starting check: x\n\nResult: pass - Command exited with code 0\n", "pass"},
		{"fail", "out\n\nResult: fail - Exited with code 1\n", "fail"},
		{"fix instructions after", "\nResult: error - Missing command: x\n\n" + FixInstructionsHeader + "\nResult: pass - not ours\n", "error"},
		{"last of several", "\nResult: fail - a\n\nResult: pass - b\n", "pass"},
		{"huge output before the result", big + "\nResult: fail - Exited with code 2\n", "fail"},
		{"no result", "still running\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "check_x.1.log")
			if err := os.WriteFile(p, []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := LastResult(p); got != tt.want {
				t.Fatalf("LastResult = %q, want %q", got, tt.want)
			}
		})
	}
	if got := LastResult(filepath.Join(t.TempDir(), "missing.log")); got != "" {
		t.Fatalf("missing file: %q", got)
	}
}
