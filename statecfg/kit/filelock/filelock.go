// Package filelock takes and releases an exclusive lock of an open file,
// the one way the gauntlet serializes its writers across processes. On Unix it is an advisory flock(2) lock of the whole file (a
// directory's descriptor works too); on Windows a LockFileEx lock of the
// file's first byte, which is mandatory there, so a locked file must be
// one that nobody reads or writes (an empty lock file). Either way the
// lock goes with the open file: closing it, or the process ending,
// releases it.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// MaxWait bounds how long Lock waits while another open file holds the
// lock: the gauntlet's own writers hold one for the few milliseconds of a
// small file's rewrite, so a lock held longer is someone else's (a
// process of the agent's holding it on purpose), and waiting for it would
// hang the stop hook.
const MaxWait = 3 * time.Second

// ErrBusy is matched by Lock's error when another open file held the lock
// past the wait.
var ErrBusy = errors.New("the lock is held by another process")

// deadline is the process's deadline for taking locks (SetDeadline), in
// Unix nanoseconds; 0 for none.
var deadline atomic.Int64

// SetDeadline makes every later Lock of this process give up at t at the
// latest, after one try: the stop hook's answer deadline, past which no
// wait for a lock may hold its answer. The zero time clears it.
func SetDeadline(t time.Time) {
	if t.IsZero() {
		deadline.Store(0)
		return
	}
	deadline.Store(t.UnixNano())
}

// Lock takes an exclusive lock of f, waiting while another open file
// holds one, for MaxWait at most and never past the process's deadline
// (SetDeadline): then it fails with ErrBusy. No wait of the gauntlet's for
// a lock is unbounded.
func Lock(f *os.File) error {
	ok, err := tryLock(f)
	if err != nil || ok {
		return err
	}
	until := time.Now().Add(MaxWait)
	if d := deadline.Load(); d != 0 && time.Unix(0, d).Before(until) {
		until = time.Unix(0, d)
	}
	for wait := time.Millisecond; time.Now().Before(until); wait = min(2*wait, 50*time.Millisecond) {
		time.Sleep(min(wait, time.Until(until)))
		if ok, err := tryLock(f); err != nil || ok {
			return err
		}
	}
	return fmt.Errorf("%w (waited until %s)", ErrBusy, until.UTC().Format(time.RFC3339))
}

// TryLock takes an exclusive lock of f when no other open file holds one,
// without waiting: false when another holds it.
func TryLock(f *os.File) (bool, error) { return tryLock(f) }

// Unlock releases the lock Lock took of f.
func Unlock(f *os.File) error { return unlock(f) }
