// Package filelock takes and releases an exclusive lock of an open file,
// the one way the gauntlet serializes its writers across processes. On Unix it is an advisory flock(2) lock of the whole file (a
// directory's descriptor works too); on Windows a LockFileEx lock of the
// file's first byte, which is mandatory there, so a locked file must be
// one that nobody reads or writes (an empty lock file). Either way the
// lock goes with the open file: closing it, or the process ending,
// releases it.
package filelock

import "os"

// Lock takes an exclusive lock of f, waiting while another open file
// holds one.
func Lock(f *os.File) error { return lock(f) }

// TryLock takes an exclusive lock of f when no other open file holds one,
// without waiting: false when another holds it.
func TryLock(f *os.File) (bool, error) { return tryLock(f) }

// Unlock releases the lock Lock took of f.
func Unlock(f *os.File) error { return unlock(f) }
