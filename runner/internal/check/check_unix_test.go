//go:build unix

package check

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// A timeout kills the whole tree, background children included.
func TestTimeoutKillsTree(t *testing.T) {
	e := env(t)
	pidFile := filepath.Join(e.Root, "pid")
	res := Run(context.Background(), job("sleep 60 & echo $! > '"+pidFile+"'; sleep 60", func(c *config.Check) { c.Timeout = 300 * time.Millisecond }), e)
	if res.Status != gate.StatusFail || !strings.HasPrefix(res.Message, "Timed out after") {
		t.Fatalf("result = %+v", res)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background sleeper %d survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
