package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTryCheck(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, command string
		timeout            time.Duration
		passed             bool
		message, output    string
	}{
		{"pass in the working directory", "sub", "pwd", 0, true, "Command exited with code 0", root + "/sub\n"},
		{"failure keeps the output", ".", "echo one; echo two >&2; exit 3", 0, false, "Exited with code 3", "one\ntwo\n"},
		{"base branch substituted and in the environment", ".", `echo ${BASE_BRANCH} "$BASE_BRANCH"`, 0, true, "Command exited with code 0", "origin/x origin/x\n"},
		{"multi-line command with a blank line", ".", "echo a\n\necho b\nexit 1\n", 0, false, "Exited with code 1", "a\nb\n"},
		{"timeout", ".", "sleep 5", 100 * time.Millisecond, false, "Timed out after 0.1s", ""},
		{"missing program: the run's preflight", ".", "no-such-program-xyz --help", 0, false, "Missing command: no-such-program-xyz", ""},
		{"command substitution first", ".", "files=$(echo a.go) || exit 2\necho \"$files\"", 0, true, "Command exited with code 0", "a.go\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TryCheck(context.Background(), TrialOptions{Root: root, Dir: tc.dir, Name: "c", Command: tc.command,
				BaseBranch: "origin/x", Timeout: tc.timeout})
			if got.Passed != tc.passed || got.Message != tc.message || !strings.Contains(got.Output, tc.output) || got.Canceled {
				t.Errorf("got %+v, want passed=%v message=%q output containing %q", got, tc.passed, tc.message, tc.output)
			}
		})
	}
}

func TestTryCheckCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	got := TryCheck(ctx, TrialOptions{Root: t.TempDir(), Dir: ".", Name: "c", Command: "sleep 5"})
	if got.Passed || !got.Canceled {
		t.Errorf("got %+v, want canceled", got)
	}
}
