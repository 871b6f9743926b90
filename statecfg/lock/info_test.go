package lock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	if info, err := Inspect(dir); info != nil || err != nil {
		t.Fatalf("no lock: %+v %v", info, err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, err := Inspect(dir)
	host, _ := os.Hostname()
	if err != nil || info.PID != os.Getpid() || info.Host != host || info.Stale || time.Since(info.Since) > time.Minute {
		t.Errorf("held lock: %+v %v", info, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	// The TypeScript tool's plain pid: no holder named, its age from the file.
	if err := os.WriteFile(filepath.Join(dir, File), []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err = Inspect(dir)
	if err != nil || info.PID != 0 || info.Stale || info.Since.IsZero() {
		t.Errorf("foreign lock: %+v %v", info, err)
	}
}
