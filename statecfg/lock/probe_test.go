package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// TestHeldAgreesWithAcquire checks Held against Acquire on the same lock
// file: Held is false exactly when Acquire gets the lock (none there, or a
// stale one taken over).
func TestHeldAgreesWithAcquire(t *testing.T) {
	host := hostname(t)
	dead := deadPID(t)
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		wantErr bool // Acquire fails other than with a *HeldError
		held    bool
	}{
		{"no lock file", func(*testing.T, string) {}, false, false},
		{"stale: our host, dead pid", content(lockJSON(dead, host)), false, false},
		{"stale without trailing newline", content(strings.TrimSpace(lockJSON(dead, host))), false, false},
		{"our host, live pid", content(lockJSON(os.Getpid(), host)), false, true},
		{"our host, live parent pid", content(lockJSON(os.Getppid(), host)), false, true},
		{"our host, pid 1 (another user's process exists)", content(lockJSON(1, host)), false, true},
		{"other host, dead pid", content(lockJSON(dead, host+"-elsewhere")), false, true},
		{"empty file", content(""), false, true},
		{"TypeScript plain pid of a dead process", content(strconv.Itoa(dead) + "\n"), false, true},
		{"TypeScript plain pid", content(strconv.Itoa(os.Getpid())), false, true},
		{"foreign text", content("locked by me\n"), false, true},
		{"no host", content(lockJSON(dead, "")), false, true},
		{"pid zero", content(lockJSON(0, host)), false, true},
		{"extra field", content(fmt.Sprintf(`{"pid":%d,"host":%q,"started_at":"2026-01-27T10:00:00Z","tool":"x"}`, dead, host)), false, true},
		{"no start time", content(fmt.Sprintf(`{"pid":%d,"host":%q}`, dead, host)), false, true},
		{"trailing data", content(lockJSON(dead, host) + "{}"), false, true},
		{"oversized garbage", content(strings.Repeat("x", maxProbe+1)), false, true},
		{"dangling symbolic link", func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(filepath.Dir(path), "gone"), path); err != nil {
				t.Fatal(err)
			}
		}, false, true},
		{"FIFO", func(t *testing.T, path string) {
			fifotest.Create(t, path)
		}, false, true},
		{"symbolic link to a stale lock", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "elsewhere")
			if err := os.WriteFile(target, []byte(lockJSON(dead, host)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, false, true},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			tc.setup(t, path)
			if got := Held(dir); got != tc.held {
				t.Errorf("Held = %v, want %v", got, tc.held)
			}
			l, err := Acquire(dir)
			defer l.Release()
			var held *HeldError
			switch {
			case tc.wantErr:
				if err == nil || errors.As(err, &held) {
					t.Errorf("Acquire = %v; want an error other than HeldError", err)
				}
			case tc.held != (err != nil):
				t.Errorf("Held = %v but Acquire = %v", tc.held, err)
			case err != nil && !errors.As(err, &held):
				t.Errorf("Acquire = %v; want HeldError", err)
			}
		})
	}
}

// content writes s as the lock file.
func content(s string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHeldMissingLogDir(t *testing.T) {
	if Held(filepath.Join(t.TempDir(), "no", "such", "dir")) {
		t.Error("Held in a missing log directory")
	}
}

// TestHeldOwnLock: a lock Acquire holds is held until released.
func TestHeldOwnLock(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Error("Held = false for a held lock")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if Held(dir) {
		t.Error("Held = true after Release")
	}
}

// TestHeldDoesNotModify: Held only looks; a stale lock stays for Acquire.
func TestHeldDoesNotModify(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	stale := lockJSON(deadPID(t), hostname(t))
	content(stale)(t, path)
	if Held(dir) {
		t.Fatal("Held = true for a stale lock")
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != stale {
		t.Errorf("lock file after Held = %q, %v", data, err)
	}
	assertNoTempFiles(t, dir)
}

// TestHeldOversizedStale: Held reads at most maxProbe bytes, so a lock of
// ours padded beyond that (no lock this package writes is) is respected
// without reading it all, although Acquire would take it over.
func TestHeldOversizedStale(t *testing.T) {
	dir := t.TempDir()
	content(lockJSON(deadPID(t), hostname(t))+strings.Repeat(" ", maxProbe))(t, filepath.Join(dir, File))
	if !Held(dir) {
		t.Error("Held = false for an oversized lock file")
	}
}

// TestHeldUnreadable: a lock file that cannot be read is respected.
func TestHeldUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	content(lockJSON(deadPID(t), hostname(t)))(t, path)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Error("Held = false for an unreadable lock file")
	}
}

// TestHeldFIFO: a FIFO in the lock's place does not block Held (a plain
// open would wait for a writer) and is respected.
func TestHeldFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := fifotest.Make(filepath.Join(dir, File)); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool, 1)
	go func() { done <- Held(dir) }()
	select {
	case held := <-done:
		if !held {
			t.Error("Held = false for a FIFO")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Held blocked on a FIFO")
	}
}

// BenchmarkHeld measures the stop hook's lock probe: no lock (one failed
// open), a stale lock (read, decode, one kill) and a held one.
func BenchmarkHeld(b *testing.B) {
	host, _ := os.Hostname()
	for _, bc := range []struct {
		name  string
		setup func(b *testing.B, dir string)
	}{
		{"none", func(*testing.B, string) {}},
		{"stale", func(b *testing.B, dir string) {
			// above Linux's largest pid_max (1<<22): never a live process
			if err := os.WriteFile(Path(dir), []byte(lockJSON(1<<22+1, host)), 0o644); err != nil {
				b.Fatal(err)
			}
		}},
		{"held", func(b *testing.B, dir string) {
			l, err := Acquire(dir)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = l.Release() })
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			bc.setup(b, dir)
			want := bc.name == "held"
			for b.Loop() {
				if Held(dir) != want {
					b.Fatalf("Held = %v", !want)
				}
			}
		})
	}
}

// A log directory that is a regular file can hold no lock: the run must go
// ahead and report the real problem, not be skipped as lock_exists.
func TestHeldLogDirIsAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "logs")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Held(p) {
		t.Fatal("Held = true for a log directory that is a file")
	}
}
