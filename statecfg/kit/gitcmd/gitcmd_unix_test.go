//go:build unix

package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// A context that ends is the error (never an exit status), and it kills
// git's whole process group: what git started (here a shell alias that
// leaves a sleeper in the background) does not outlive the call. The
// test process is made a child subreaper first, as agent-gauntlet makes
// itself (cli/signals.go): the group's SIGKILL is only sent, and the
// sleeper, reparented here, is then reaped by KillStrays before Run
// returns; under init it would die a moment later.
func TestRunCanceledKillsTheGroup(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	if err := procgroup.AdoptStrays(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	alias := "alias.wait=!sleep 30 & echo $! > " + pidFile + "; wait"
	_, err := Run(ctx, Call{Dir: dir, Args: []string{"-c", alias, "wait"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the deadline", err)
	}
	data, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatalf("the alias did not start: %v", rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid <= 0 {
		t.Fatalf("pid %q", data)
	}
	if alive(pid) {
		t.Errorf("the background sleeper %d outlived the call", pid)
	}
}

// alive reports whether process pid runs (a zombie waiting for its parent
// to reap it has ended).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || !strings.Contains(string(st), ") Z ")
}
