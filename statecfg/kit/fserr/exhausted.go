package fserr

import (
	"errors"
	"syscall"
)

// Exhausted reports whether err says the file system cannot take a write:
// it is full (ENOSPC), over a quota (EDQUOT), over the process's file size
// limit (EFBIG), read-only (EROFS), or failing (EIO). Nothing a change to
// the work tree can fix.
func Exhausted(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EROFS, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
