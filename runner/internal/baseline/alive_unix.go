//go:build unix

package baseline

import (
	"errors"
	"syscall"
)

// processGone reports whether no process pid exists. A process of another
// user (EPERM) exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
