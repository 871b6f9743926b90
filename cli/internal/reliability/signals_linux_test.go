//go:build linux

package reliability

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// ignoresSIGPIPE reports whether process pid ignores SIGPIPE, from the
// SigIgn mask of /proc/pid/status.
func ignoresSIGPIPE(t *testing.T, pid int) bool {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if mask, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			if err != nil {
				t.Fatalf("SigIgn %q: %v", mask, err)
			}
			return m&(1<<(syscall.SIGPIPE-1)) != 0
		}
	}
	t.Fatalf("no SigIgn in /proc/%d/status", pid)
	return false
}

// unread returns how many bytes written to the pipe w no one has read yet.
func unread(t *testing.T, w *os.File) int {
	t.Helper()
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, w.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("FIONREAD: %v", errno)
	}
	return int(n)
}

// TestSIGTERMWhileHookWaitsForInput sends SIGTERM to a stop hook whose
// input never ends. The hook ignores SIGPIPE from its start and installs
// its handlers a moment later, off its fast paths, SIGPIPE last: once it
// has read the input (so it has started) and SIGPIPE is no longer ignored,
// a signal must still get one JSON line that lets the agent stop, and
// exit 0.
func TestSIGTERMWhileHookWaitsForInput(t *testing.T) {
	s := newSandbox(t, "", grandchildGateFiles)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := s.startReading(r, nil, nil, "stop-hook", "--agent", "claude")
	r.Close()
	if _, err := w.WriteString(`{"hook_event_name":"Stop",`); err != nil {
		t.Fatal(err)
	}
	if !waitFor(60*time.Second, func() bool { return p.exited() || unread(t, w) == 0 }) || p.exited() {
		t.Fatalf("the hook did not read its input:\n%v", p.wait())
	}
	pid := p.cmd.Process.Pid
	if !waitFor(60*time.Second, func() bool { return p.exited() || !ignoresSIGPIPE(t, pid) }) || p.exited() {
		t.Fatalf("the hook did not install its signal handlers while waiting:\n%v", p.wait())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res := p.wait()
	if res.waitErr != nil || res.signal != 0 {
		t.Fatalf("the hook did not end on its own after SIGTERM:\n%v", res)
	}
	noGoDump(t, "output", res.stdout+res.stderr)
	a, err := parseHookAnswer(res.stdout)
	if err != nil || res.code != 0 || a.Decision != "approve" || a.Status != "invalid_input" {
		t.Errorf("want one approve line (invalid_input) and exit 0: %v\n%v", err, res)
	}
}
