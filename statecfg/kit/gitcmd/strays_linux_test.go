package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Nothing git starts (an alias, a hook, a filter) outlives it, even a
// process that left git's process group for a session of its own.
func TestDetachedGitDescendantDies(t *testing.T) {
	if err := procgroup.AdoptStrays(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	alias := `alias.x=!setsid sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 300' "` + pidFile + `" & while [ ! -f "` + pidFile + `" ]; do sleep 0.05; done`
	if _, err := Run(context.Background(), Call{Dir: dir, Args: []string{"-c", alias, "x"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("detached process %d outlived git", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
