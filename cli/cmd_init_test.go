package cli

import (
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stack"
)

func TestFailureLine(t *testing.T) {
	for _, tc := range []struct{ message, output, want string }{
		{"Exited with code 1", "\n> app@1.0.0 test\n> jest\n\nFAIL src/a.test.js\n  ● adds\n", "exit 1: FAIL src/a.test.js"},
		{"Exited with code 1", "--- FAIL: TestAdd (0.00s)\n    add_test.go:7: Add(1, 2) != 3\nFAIL\nFAIL\texample.com/m\t0.01s\n", "exit 1: --- FAIL: TestAdd (0.00s)"},
		{"Exited with code 1", "# example.com/m\n./a.go:3:1: syntax error: non-declaration statement outside function body\n", "exit 1: ./a.go:3:1: syntax error: non-declaration statement outside function body"},
		{"Exited with code 2", "notes.txt:1: TODO left\nmake: *** [Makefile:5: lint] Error 1\n", "exit 2: notes.txt:1: TODO left"},
		{"Exited with code 3", "", "exit 3"},
		{"Timed out after 300s", "still running\n", "timed out after 300s: still running"},
		{"Missing command: ./mvnw", "", "missing command: ./mvnw"},
	} {
		if got := failureLine(tc.message, tc.output); got != tc.want {
			t.Errorf("failureLine(%q, %q) = %q, want %q", tc.message, tc.output, got, tc.want)
		}
	}
}

// TestFailureReason: init's reason for a failing check is its first error
// finding, not the first line that looks like one (a passing test's debug
// output).
func TestFailureReason(t *testing.T) {
	out := "[Debug] [Error] Error while parsing flags from args [--x]\n" +
		"--- FAIL: TestOldCrash (0.00s)\npanic: runtime error: index out of range [recovered]\n\ngoroutine 7 [running]:\n" +
		"FAIL\tgithub.com/spf13/cobra\t0.012s\nFAIL\n"
	pr := stack.Proposal{Name: "go-test", Command: "go test ./...", Format: "go-test"}
	got := failureReason("Exited with code 1", out, pr, t.TempDir())
	want := "exit 1: test github.com/spf13/cobra TestOldCrash failed: panic: runtime error: index out of range [recovered]"
	if got != want {
		t.Errorf("failureReason = %q, want %q", got, want)
	}
	vet := "# example.com/x\nvet: ./a.go:3:2: undefined: y\n"
	got = failureReason("Exited with code 1", vet, stack.Proposal{Command: "go vet ./...", Format: "govet"}, t.TempDir())
	if want := "exit 1: a.go:3:2: error: undefined: y"; got != want {
		t.Errorf("failureReason = %q, want %q", got, want)
	}
}
