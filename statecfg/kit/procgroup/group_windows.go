//go:build windows

package procgroup

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Attr starts a child in a new process group (Windows has no
// process-group signals: Kill kills the process tree instead).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Kill kills p and every process it started that is still running
// (taskkill /T walks the tree from p, so it finds the descendants only
// while p is alive), then p itself in case taskkill is unavailable. A
// process that is already gone is not an error.
func Kill(p *os.Process) error {
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run()
	_ = p.Kill()
	return nil
}

// killGroup does nothing on Windows, which has no process-group signals: a
// recorded process id may belong to another process by now.
func killGroup(int) bool { return false }
