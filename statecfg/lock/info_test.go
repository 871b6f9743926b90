package lock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Inspect names the holder of a lock of ours, and dates a foreign one by
// its file.
func TestInspectHolder(t *testing.T) {
	dir := t.TempDir()
	if info := Inspect(dir, 0); info.Exists || info.Held {
		t.Fatalf("no lock: %+v", info)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	info := Inspect(dir, 0)
	host, _ := os.Hostname()
	if !info.Held || info.PID != os.Getpid() || info.Host != host || time.Since(info.TakenAt) > time.Minute {
		t.Errorf("held lock: %+v", info)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	// The TypeScript tool's plain pid: no holder named, its age from the file.
	if err := os.WriteFile(filepath.Join(dir, File), []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info = Inspect(dir, 0)
	if !info.Held || info.PID != 0 || info.Host != "" || info.TakenAt.IsZero() {
		t.Errorf("foreign lock: %+v", info)
	}
}
