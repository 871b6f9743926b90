//go:build unix

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A timeout must kill the whole group: a background grandchild holding the
// output pipe must not keep Run waiting, and must not survive.
func TestTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	var out bytes.Buffer
	res, err := Run(context.Background(), Spec{
		Path:    "sh",
		Args:    []string{"-c", "sleep 60 & echo $! > " + pidFile + "; sleep 60"},
		Stdout:  &out,
		Timeout: 200 * time.Millisecond,
	})
	if !errors.Is(err, ErrTimeout) || !res.TimedOut {
		t.Fatalf("err = %v, res = %+v; want a timeout", err, res)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &pid); err != nil {
		t.Fatal(err)
	}
	// The grandchild is killed; give the kernel a moment to reap it.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after the group was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
