package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
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

func TestFailing(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"check_._lint.1.log":        "Result: pass - Command exited with code 0\n",
		"check_._lint.2.log":        "Executing command: make lint\n\nResult: fail - Exited with code 2\n",
		"check_._test.2.log":        "Result: pass - Command exited with code 0\n",
		"check_._err.1.log":         "x\nResult: error - Missing command: x\n",
		"review_._q_claude@1.1.log": "Result: fail - x\n",
		"review_._q.1.log":          "Result: fail - not a check\n",
		"check_sub_lint.1.log":      "Result: fail - x\n",
		"console.1.log":             "Result: fail - x\n",
		"check_lint.1.log":          "x\nResult: fail - no job's name\n",
		"check_._lint.3.json":       "{}",
		"check_.._lint%2Fx.1.log":   "x\nResult: fail - x\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, err := logdir.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	jn := logdir.NewJobNames("check:.:lint", "check:.:test", "check:.:err", "check:sub:lint", "review:.:q")
	got := Failing(dir, names, jn, func(job string) bool { return job != "check:sub:lint" })
	want := map[string]bool{"check:.:lint": true, "check:.:err": true, "check:..:lint/x": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Failing = %v, want %v", got, want)
	}
}
