//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Attr starts a child as the leader of a new process group.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Kill sends SIGKILL to the process group led by p; a group that is gone
// already is not an error.
func Kill(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill process group %d: %w", p.Pid, err)
	}
	return nil
}
