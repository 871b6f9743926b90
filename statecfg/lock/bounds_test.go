package lock

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A lock no live run can hold is taken over: any lock older than the
// longest possible run (Bounds.MaxAge), of any host or tool, and ours once
// its run's deadline has passed. A younger one, or any lock without a
// bound, is respected, and its age is in the error and in Inspect.
func TestAcquireBounds(t *testing.T) {
	now := time.Now()
	old, young := now.Add(-2*time.Hour), now.Add(-time.Minute)
	ours := func(host string, started time.Time, deadline *time.Time) string {
		data, _ := json.Marshal(owner{PID: os.Getpid(), Host: host, StartedAt: started.UTC(), Deadline: deadline})
		return string(data)
	}
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	host := hostname(t)
	tests := []struct {
		name    string
		content string
		mod     time.Time
		maxAge  time.Duration
		stale   bool
		warning string
	}{
		{"TypeScript pid, older than the bound", "12345\n", old, time.Hour, true, "no run lasts longer than 1h0m0s"},
		{"TypeScript pid, no bound", "12345\n", old, 0, false, ""},
		{"TypeScript pid, younger than the bound", "12345\n", young, time.Hour, false, ""},
		// The age is read when the lock is taken over, seconds later under load.
		{"empty file, older than the bound", "", old, time.Hour, true, "taken 2h0m"},
		{"ours elsewhere, started long ago", ours(host+"-elsewhere", old, nil), now, time.Hour, true, "no run lasts longer than 1h0m0s"},
		{"ours elsewhere, started lately", ours(host+"-elsewhere", young, nil), old, time.Hour, false, ""},
		// A live holder's lock is taken after its process started (an older
		// one names a reused pid, TestPIDReuse).
		{"ours alive, deadline passed", ours(host, now, &past), now, 0, true, "the deadline of its run has passed"},
		{"ours elsewhere, deadline passed", ours(host+"-elsewhere", young, &past), now, 0, true, "the deadline of its run has passed"},
		{"ours alive, deadline ahead", ours(host, now, &future), now, 0, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, tc.mod, tc.mod); err != nil {
				t.Fatal(err)
			}
			info := Inspect(dir, tc.maxAge)
			if !info.Exists || info.Held == tc.stale {
				t.Errorf("Inspect = %+v, want held %v", info, !tc.stale)
			}
			l, err := AcquireWithin(dir, Bounds{MaxAge: tc.maxAge})
			if !tc.stale {
				var held *HeldError
				if !errors.As(err, &held) {
					l.Release()
					t.Fatalf("AcquireWithin = %v, %v; want HeldError", l, err)
				}
				if !strings.Contains(err.Error(), path+", taken ") || !strings.Contains(info.Message(), ", taken ") {
					t.Errorf("the error and the message do not say when the lock was taken: %v; %s", err, info.Message())
				}
				return
			}
			if err != nil {
				t.Fatalf("AcquireWithin: %v", err)
			}
			defer l.Release()
			if !strings.Contains(l.Warning, "took over the stale lock file "+path) || !strings.Contains(l.Warning, tc.warning) {
				t.Errorf("Warning = %q, want it to name %s and say %q", l.Warning, path, tc.warning)
			}
		})
	}
}

// AcquireWithin writes its deadline into the lock.
func TestAcquireWritesDeadline(t *testing.T) {
	dir := t.TempDir()
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	l, err := AcquireWithin(dir, Bounds{Deadline: deadline})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	data, _ := os.ReadFile(l.Path)
	var o owner
	if err := json.Unmarshal(data, &o); err != nil || o.Deadline == nil || !o.Deadline.Equal(deadline) {
		t.Errorf("lock %s: %+v, %v", data, o, err)
	}
}
