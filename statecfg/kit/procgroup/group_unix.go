//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Attr starts a child as the leader of a new session, and so of a new
// process group: it has no controlling terminal, so a program that asks on
// /dev/tty (ssh's host-key question, sudo's password, a credential prompt)
// fails at once ("No such device or address") instead of being stopped by
// the terminal, or waiting for a human, while the run hangs.
// Where the system has it (Linux), the child is also sent SIGKILL when the
// gauntlet dies, even of SIGKILL: a hook its client kills outright takes
// its gates' leaders with it (what they started is reaped by the next run,
// see Reap).
func Attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	setDeathSignal(a)
	return a
}

// killGroup sends SIGKILL to the process group pgid, reporting whether
// any member was there.
func killGroup(pgid int) bool {
	return syscall.Kill(-pgid, syscall.SIGKILL) == nil
}

// Kill sends SIGKILL to the process group led by p; a group that is gone
// already is not an error.
func Kill(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill process group %d: %w", p.Pid, err)
	}
	return nil
}
