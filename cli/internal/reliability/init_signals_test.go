//go:build unix

package reliability

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startInit starts `agent-gauntlet init args...` in the sandbox with a stdin
// that stays open (a terminal nobody types into), and returns the command,
// its stdout and its stderr.
func startInit(t *testing.T, s *sandbox, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary(t), append([]string{"init"}, args...)...)
	cmd.Dir, cmd.Env = s.repo, s.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// nothingWritten fails the test when init left anything in the repository.
func nothingWritten(t *testing.T, s *sandbox) {
	t.Helper()
	for _, p := range []string{".gauntlet", ".gitignore", ".claude", "gauntlet_logs"} {
		if exists(filepath.Join(s.repo, p)) {
			t.Errorf("%s written by an interrupted init", p)
		}
	}
	if out := s.git("status", "--porcelain"); out != "" {
		t.Errorf("the work tree changed:\n%s", out)
	}
}

// TestInitPromptSignals sends each ending signal to a real init waiting at
// its first question: init ends at once with 128+n, one line on stderr
// saying nothing was written, and nothing is written.
func TestInitPromptSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := newSandbox(t, "", map[string]string{"README.md": "hello\n"})
			cmd, stdout, stderr := startInit(t, s, "--cli", "claude")
			if !waitFor(60*time.Second, func() bool { return strings.Contains(stdout.String(), "Base branch your changes are compared against") }) {
				t.Fatalf("no question on stdout:\n%s\n%s", stdout.String(), stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if code != 128+int(sig) {
				t.Errorf("exit %d (%v), want %d", code, err, 128+int(sig))
			}
			errOut := stderr.String()
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "nothing was written") {
				t.Errorf("stderr %q, want one line saying nothing was written", errOut)
			}
			noGoDump(t, "stderr", errOut)
			nothingWritten(t, s)
		})
	}
}

// TestInitSignalDuringTrial sends SIGTERM while init tries a proposed
// check: the check's whole process group dies (its background grandchild
// too), init exits 143, and nothing is written.
func TestInitSignalDuringTrial(t *testing.T) {
	s := newSandbox(t, "", map[string]string{"Makefile": "test:\n\t@sleep 120 & echo $$! > \"$$MARKS/grandchild\"; touch \"$$MARKS/started\"; wait\n"})
	cmd, stdout, stderr := startInit(t, s, "-y", "--cli", "claude")
	if !waitFor(60*time.Second, func() bool { return exists(s.mark("started")) }) {
		t.Fatalf("the trial did not start:\n%s\n%s", stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(s.mark("grandchild"))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted by SIGTERM: nothing was written") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if !waitFor(10*time.Second, func() bool { return processGone(grandchild) }) {
		t.Errorf("the trial's grandchild %d outlived init", grandchild)
	}
	nothingWritten(t, s)
}
