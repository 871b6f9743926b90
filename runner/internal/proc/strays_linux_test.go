package proc

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

// No process a child started outlives Run, however it detached (a new
// session, a double fork, a session inside a session, ignoring SIGHUP and
// SIGTERM) and however the child ended (on its own, at its timeout, or
// with its context). Each shape writes its detached pid to $0 once it is
// running, then the child ends the way the row says.
func TestNoDetachedDescendantOutlivesRun(t *testing.T) {
	if err := procgroup.AdoptStrays(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	shapes := map[string]string{
		"setsid":             `setsid sh -c 'echo $$ >> "$0"; exec sleep 300' "$0" &`,
		"double fork":        `( sh -c 'echo $$ >> "$0"; exec sleep 300' "$0" & ) &`,
		"nohup in setsid":    `setsid nohup sh -c 'trap "" HUP TERM; echo $$ >> "$0"; while :; do sleep 1; done' "$0" >/dev/null 2>&1 &`,
		"session in session": `setsid sh -c 'setsid sh -c "echo \$\$ >> \"\$0\"; exec sleep 300" "$0" & echo $$ >> "$0"; exec sleep 300' "$0" &`,
	}
	ends := map[string]struct {
		tail    string
		timeout time.Duration
		cancel  bool
	}{
		"exit":    {tail: "true"},
		"timeout": {tail: "sleep 300", timeout: 2 * time.Second},
		"cancel":  {tail: "sleep 300", cancel: true},
	}
	for shape, start := range shapes {
		for end, e := range ends {
			t.Run(shape+"/"+end, func(t *testing.T) {
				pidFile := filepath.Join(t.TempDir(), "pids")
				want := strings.Count(start, "echo ")
				// The child waits until every detached process has
				// written its pid, so none is killed before it detaches.
				script := start + `
while [ "$(wc -l < "$0" 2>/dev/null || echo 0)" -lt ` + strconv.Itoa(want) + ` ]; do sleep 0.05; done
` + e.tail
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if e.cancel {
					go func() {
						for !hasLines(pidFile, want) {
							time.Sleep(20 * time.Millisecond)
						}
						cancel()
					}()
				}
				_, err := Run(ctx, Spec{Path: "sh", Args: []string{"-c", script, pidFile}, Timeout: e.timeout})
				if e.tail == "true" && err != nil {
					t.Fatal(err)
				}
				data, _ := os.ReadFile(pidFile)
				pids := strings.Fields(string(data))
				if len(pids) != want {
					t.Fatalf("pids %q, want %d", pids, want)
				}
				for _, p := range pids {
					n, _ := strconv.Atoi(p)
					if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
						_ = syscall.Kill(n, syscall.SIGKILL)
						t.Errorf("detached process %d outlived Run (kill 0: %v)", n, err)
					}
				}
			})
		}
	}
}

func hasLines(p string, n int) bool {
	data, _ := os.ReadFile(p)
	return strings.Count(string(data), "\n") >= n
}
