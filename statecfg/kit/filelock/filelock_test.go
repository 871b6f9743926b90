package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// open opens the lock file at path, closed at the end of the test.
func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestExclusive pins that two open files of one path never hold the lock
// at once: each goroutine has its own open file (as separate processes
// would) and checks that nobody else is inside while it holds the lock.
func TestExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	var inside atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		f := open(t, path)
		wg.Go(func() {
			for range 50 {
				if err := Lock(f); err != nil {
					t.Error(err)
					return
				}
				if !inside.CompareAndSwap(0, 1) {
					t.Error("two open files hold the lock at once")
				}
				for range 5 {
					runtime.Gosched()
				}
				inside.Store(0)
				if err := Unlock(f); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestReleased pins that Unlock and Close both release the lock: a second
// open file takes it after each (a lock left held would hang the test).
func TestReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b := open(t, path), open(t, path)
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
}

// TestTryLock pins that TryLock never waits: it takes a free lock, answers
// false while another open file holds it (a lock of its own or Lock's),
// and takes it again once that one is released.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b := open(t, path), open(t, path)
	for _, holder := range []func(*os.File) error{Lock, func(f *os.File) error {
		ok, err := TryLock(f)
		if err == nil && !ok {
			t.Fatal("TryLock of a free lock answered false")
		}
		return err
	}} {
		if err := holder(a); err != nil {
			t.Fatal(err)
		}
		if ok, err := TryLock(b); err != nil || ok {
			t.Fatalf("TryLock while another open file holds the lock: %v, %v", ok, err)
		}
		if err := Unlock(a); err != nil {
			t.Fatal(err)
		}
		if ok, err := TryLock(b); err != nil || !ok {
			t.Fatalf("TryLock of a released lock: %v, %v", ok, err)
		}
		if err := Unlock(b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLockIsBounded: a lock another open file holds for good (a process
// of the agent's, on purpose) makes Lock fail with ErrBusy, within
// MaxWait and at the process's deadline when that comes first; it never
// waits for good.
func TestLockIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	holder, waiter := open(t, path), open(t, path)
	if err := Lock(holder); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		deadline time.Duration // from now; 0 none
		within   time.Duration
	}{
		{"no deadline", 0, MaxWait + time.Second},
		{"deadline first", 200 * time.Millisecond, MaxWait},
		{"deadline passed", -time.Second, MaxWait},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.deadline != 0 {
				SetDeadline(time.Now().Add(c.deadline))
				defer SetDeadline(time.Time{})
			}
			done := make(chan error, 1)
			go func() { done <- Lock(waiter) }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrBusy) {
					t.Fatalf("Lock of a held lock: %v, want ErrBusy", err)
				}
			case <-time.After(c.within):
				t.Fatalf("Lock of a held lock still waits after %s", c.within)
			}
		})
	}
	if err := Unlock(holder); err != nil {
		t.Fatal(err)
	}
	if err := Lock(waiter); err != nil {
		t.Fatalf("Lock once released: %v", err)
	}
}
