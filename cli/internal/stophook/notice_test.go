package stophook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// The notice is the gauntlet's to write over and delete only when it
// wrote it: a person's file at its name is neither written over nor
// taken.
func TestNoticeTakesOnlyItsOwn(t *testing.T) {
	root := t.TempDir()
	logDir := filepath.Join(root, "gauntlet_logs")
	if err := errors.Join(os.Mkdir(filepath.Join(root, ".git"), 0o755), os.Mkdir(logDir, 0o755), logdir.Start(logDir)); err != nil {
		t.Fatal(err)
	}
	leaveNotice(logDir, "told once")
	if got := TakeNotice(logDir); got != "told once" {
		t.Fatalf("TakeNotice = %q, want the notice left", got)
	}
	path := filepath.Join(logDir, logdir.NoticeFile)
	if _, err := os.Lstat(path); err == nil {
		t.Fatal("the notice taken is still there")
	}
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leaveNotice(logDir, "over it")
	if got := TakeNotice(logDir); got != "" {
		t.Errorf("TakeNotice = %q from a person's file", got)
	}
	if got, _ := os.ReadFile(path); string(got) != "mine\n" {
		t.Errorf("the person's file holds %q", got)
	}
}
