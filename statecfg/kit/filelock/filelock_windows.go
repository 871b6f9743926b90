//go:build windows

package filelock

import (
	"os"
	"syscall"
	"unsafe"
)

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

// lockfileExclusiveLock is LOCKFILE_EXCLUSIVE_LOCK: without
// LOCKFILE_FAIL_IMMEDIATELY, LockFileEx waits for the lock.
const lockfileExclusiveLock = 2

// lockfileFailImmediately is LOCKFILE_FAIL_IMMEDIATELY, and
// errLockViolation ERROR_LOCK_VIOLATION, what LockFileEx answers with it
// when another open file holds the lock.
const (
	lockfileFailImmediately = 1
	errLockViolation        = syscall.Errno(33)
)

// tryLock locks the first byte of f (LockFileEx), without waiting.
func tryLock(f *os.File) (bool, error) {
	var ol syscall.Overlapped
	r, _, e := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r != 0 {
		return true, nil
	}
	if e == errLockViolation {
		return false, nil
	}
	return false, e
}

// unlock unlocks the byte tryLock locked.
func unlock(f *os.File) error {
	var ol syscall.Overlapped
	if r, _, e := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ol))); r == 0 {
		return e
	}
	return nil
}
