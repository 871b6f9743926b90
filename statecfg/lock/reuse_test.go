package lock

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A lock of this host whose pid now belongs to a process that started
// after the lock was taken (the pid was reused, quickly in containers) is
// stale; one taken after its process started is held. The process is a
// real one, its pid written into locks dated before and after it started.
func TestPIDReuse(t *testing.T) {
	if _, ok := processStart(os.Getpid()); !ok {
		t.Skip("this OS does not tell when a process started: only the age bound applies")
	}
	before := time.Now().Add(-time.Hour)
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), helperEnv+"=sleep", noRaceExitSleep)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	})
	started, ok := processStart(child.Process.Pid)
	if !ok || started.Before(before) || started.After(time.Now().Add(reuseTolerance)) {
		t.Fatalf("processStart(child) = %v, %v; want a time of the last hour", started, ok)
	}
	host := hostname(t)
	dir := t.TempDir()
	path := filepath.Join(dir, File)

	if err := os.WriteFile(path, []byte(lockJSONAt(child.Process.Pid, host, time.Now())), 0o644); err != nil {
		t.Fatal(err)
	}
	if info := Inspect(dir, 0); !info.Held {
		t.Errorf("a lock taken after its process started is not held: %+v", info)
	}

	if err := os.WriteFile(path, []byte(lockJSONAt(child.Process.Pid, host, before)), 0o644); err != nil {
		t.Fatal(err)
	}
	if info := Inspect(dir, 0); info.Held {
		t.Errorf("a lock whose pid now names a later process is held: %+v", info)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire over a reused pid: %v", err)
	}
	defer l.Release()
	want := fmt.Sprintf("took over the stale lock file %s of process %d: that process id now belongs to a process started after the lock was taken", path, child.Process.Pid)
	if l.Warning[:len(want)] != want {
		t.Errorf("Warning = %q, want it to start with %q", l.Warning, want)
	}

	// Another host's lock is never judged by this host's processes.
	if err := os.WriteFile(path, []byte(lockJSONAt(child.Process.Pid, host+"-elsewhere", before)), 0o644); err != nil {
		t.Fatal(err)
	}
	if info := Inspect(dir, 0); !info.Held {
		t.Errorf("another host's lock judged by a local process: %+v", info)
	}
}

// processStart tells when this very process started: before now, after
// the test binary was built.
func TestProcessStartOfSelf(t *testing.T) {
	got, ok := processStart(os.Getpid())
	if !ok {
		t.Skip("this OS does not tell when a process started")
	}
	if got.After(time.Now().Add(reuseTolerance)) || time.Since(got) > 24*time.Hour {
		t.Errorf("processStart(self) = %v", got)
	}
	if _, ok := processStart(deadPID(t)); ok {
		t.Errorf("a dead process has a start time")
	}
}
