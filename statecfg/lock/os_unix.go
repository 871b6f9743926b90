//go:build unix

package lock

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// probeFlags are Inspect's extra open flags. O_NONBLOCK: a FIFO in the lock's
// place must not hang the hook (it reads as empty, so it is respected);
// regular files ignore the flag. O_NOFOLLOW: a symbolic link, dangling ones
// included, is respected, as Acquire respects a dangling one.
const probeFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// processGone reports whether no process pid exists. A process of another
// user (EPERM) exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// lockDir takes an advisory exclusive lock of the directory dir, which
// serializes the takers of a stale lock file in it; unlock releases it.
func lockDir(dir string) (unlock func(), err error) {
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fserr.Wrap("open log directory", dir, err)
	}
	if err := filelock.Lock(d); err != nil {
		d.Close()
		return nil, fmt.Errorf("lock log directory %s: %w", dir, err)
	}
	return func() {
		_ = filelock.Unlock(d)
		d.Close()
	}, nil
}
