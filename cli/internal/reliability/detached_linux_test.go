package reliability

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// detach starts two processes that leave the gate's process group, each
// writing its pid to $MARKS/detached: one in a session of its own
// (setsid, as test servers and daemons do) and one through a double fork,
// then marks the start and waits.
const detach = `setsid sh -c 'echo $$ >> "$MARKS/detached"; exec sleep 120' &
( sh -c 'echo $$ >> "$MARKS/detached"; exec sleep 120' & )
while [ "$(wc -l < "$MARKS/detached" 2>/dev/null || echo 0)" -lt 2 ]; do sleep 0.05; done
touch "$MARKS/started"
sleep 120
`

// TestDetachedDescendantsEndWithTheGate: no process a gate started
// outlives the gate's end, however it detached and however the gate
// ended: its timeout, the stop hook's deadline, an ending signal of the
// hook or of a run, or a review CLI hanging past its timeout.
func TestDetachedDescendantsEndWithTheGate(t *testing.T) {
	const config = "base_branch: main\ncli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\n"
	check := func(timeout string) map[string]string {
		return map[string]string{
			".gauntlet/config.yml":      config + "entry_points:\n  - path: src\n    checks: [lint]\n",
			".gauntlet/checks/lint.yml": "command: sh gate.sh\nworking_directory: .\n" + timeout,
			".gitignore":                "gauntlet_logs/\n",
			"gate.sh":                   detach,
			"src/main.txt":              "hello\n",
		}
	}
	review := map[string]string{
		".gauntlet/config.yml":         config + "entry_points:\n  - path: src\n    reviews: [quality]\n",
		".gauntlet/reviews/quality.md": "---\ntimeout: 3\n---\nReview the diff.\n",
		".gitignore":                   "gauntlet_logs/\n",
		"src/main.txt":                 "hello\n",
	}
	hookIn := `{"hook_event_name":"Stop","stop_hook_active":false}` + "\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		args   []string
		stdin  string
		signal syscall.Signal
	}{
		{"check timeout", check("timeout: 2\n"), []string{"stop-hook"}, hookIn, 0},
		{"hook deadline", check(""), []string{"stop-hook", "--timeout", "8"}, hookIn, 0},
		{"hook SIGTERM", check(""), []string{"stop-hook"}, hookIn, syscall.SIGTERM},
		{"run SIGINT", check(""), []string{"run"}, "", syscall.SIGINT},
		{"review timeout", review, []string{"stop-hook"}, hookIn, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, "", tc.files)
			s.write(map[string]string{"src/new.txt": "a change\n"})
			bin := filepath.Join(s.base, "bin")
			s.write(map[string]string{"../bin/claude": "#!/bin/sh\ncat >/dev/null\n" + detach})
			if err := os.Chmod(filepath.Join(bin, "claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			p := s.start(tc.stdin, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, nil, tc.args...)
			if !waitFor(60*time.Second, func() bool { return exists(s.mark("started")) || p.exited() }) || p.exited() {
				t.Fatalf("the gate did not start:\n%v", p.wait())
			}
			data, err := os.ReadFile(s.mark("detached"))
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			for _, f := range strings.Fields(string(data)) {
				n, _ := strconv.Atoi(f)
				pids = append(pids, n)
			}
			defer func() {
				for _, n := range pids {
					_ = syscall.Kill(n, syscall.SIGKILL)
				}
			}()
			if tc.signal != 0 {
				if err := p.cmd.Process.Signal(tc.signal); err != nil {
					t.Fatal(err)
				}
			}
			r := p.wait()
			if r.waitErr != nil || r.signal != 0 {
				t.Fatalf("the process did not end on its own:\n%v", r)
			}
			for _, n := range pids {
				if !waitFor(10*time.Second, func() bool { return processGone(n) }) {
					t.Errorf("detached process %d outlived the gate", n)
				}
			}
		})
	}
}
