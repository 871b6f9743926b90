package debuglog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func TestDebugLogRotation(t *testing.T) {
	dir := t.TempDir()
	// A work tree: the record of written files holds the log it rotates.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	d := Open(dir, config.DebugLog{Enabled: true, MaxSizeMB: 100.0 / (1 << 20)}, now)
	for i := 0; i < 5; i++ {
		d.StopHook("block", "failed")
	}
	cur, _ := os.ReadFile(filepath.Join(dir, ".debug.log"))
	old, _ := os.ReadFile(filepath.Join(dir, ".debug.log.1"))
	line := "[2026-01-02T03:04:05Z] STOP_HOOK decision=block reason=failed\n"
	if !strings.HasPrefix(string(cur), line) || !strings.HasPrefix(string(old), line) || len(cur) > 2*len(line) {
		t.Fatalf("current %q backup %q", cur, old)
	}
	var nilLog *Log
	nilLog.StopHook("allow", "passed") // disabled: no-op
	if Open(dir, config.DebugLog{}, nil) != nil {
		t.Fatal("disabled debug log is not nil")
	}
}

// The debug log never deletes what is not its own: a directory named like
// its backup stays, and a symbolic link named like it is not written
// through.
func TestDebugLogKeepsOthersFiles(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	if err := os.Mkdir(filepath.Join(dir, ".debug.log.1"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := Open(dir, config.DebugLog{Enabled: true, MaxSizeMB: 100.0 / (1 << 20)}, now)
	for i := 0; i < 5; i++ {
		d.StopHook("block", "failed")
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".debug.log.1")); err != nil || !fi.IsDir() {
		t.Errorf("the directory named like the backup is gone: %v", err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(linked, ".debug.log")); err != nil {
		t.Fatal(err)
	}
	Open(linked, config.DebugLog{Enabled: true}, now).StopHook("allow", "passed")
	if data, _ := os.ReadFile(victim); string(data) != "user data" {
		t.Errorf("written through the link: %q", data)
	}
}
