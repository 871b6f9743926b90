//go:build unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command set up by Set whose context ends is killed with everything it
// started: the grandchild it left in the background is gone too.
func TestSetKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 60 & echo $! > "$0"; wait`, pidFile)
	Set(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var grandchild int
	for deadline := time.Now().Add(10 * time.Second); grandchild == 0; {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			grandchild, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		} else if time.Now().After(deadline) {
			t.Fatal("no grandchild started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	_ = cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(grandchild, 0) == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d outlived its group", grandchild)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Kill(cmd.Process); err != nil {
		t.Errorf("killing a group that is gone: %v", err)
	}
}
