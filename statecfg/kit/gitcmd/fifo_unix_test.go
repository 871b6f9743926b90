//go:build unix

package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// Invariant: a call whose context has no deadline (a person's command)
// still ends: git waits forever on a FIFO put at a file it opens, and Run
// then ends at defaultTimeout with the context's error. The table is the
// files git opens in every repository command (HEAD, the index, the
// configuration, packed-refs), each with a command that opens it.
func TestRunWithoutDeadlineEndsOnAFIFO(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	old := defaultTimeout
	defaultTimeout = time.Second
	t.Cleanup(func() { defaultTimeout = old })
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, c := range []struct {
		file string
		args []string
	}{
		{"HEAD", []string{"rev-parse", "HEAD"}},
		{"index", []string{"status", "--porcelain"}},
		{"config", []string{"rev-parse", "HEAD"}},
		{"packed-refs", []string{"rev-parse", "--verify", "-q", "refs/tags/none"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			dir := t.TempDir()
			for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "--allow-empty", "-m", "x"}} {
				if out, err := exec.Command(Program, append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			p := filepath.Join(dir, ".git", c.file)
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			fifotest.Create(t, p)
			_, err := Run(context.Background(), Call{Dir: dir, Args: c.args})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("git %v with a FIFO at .git/%s: %v, want the deadline's error", c.args, c.file, err)
			}
		})
	}
}
