package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzStateRead reads fuzzed .execution_state contents. Read must not
// panic; an error is one line, names the file and wraps ErrCorrupt; a state
// read successfully survives Write and Read unchanged (when it can be
// written at all: encoding/json refuses years past 9999). The seed corpus
// is in testdata/fuzz/FuzzStateRead.
func FuzzStateRead(f *testing.F) {
	f.Add(`{"last_run_completed_at":"2026-01-27T10:00:00.000Z","branch":"main","commit":"abc","working_tree_ref":"def"}`)
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		path := filepath.Join(dir, File)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil {
			if got != nil {
				t.Errorf("Read returned a state with its error")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error does not wrap ErrCorrupt: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name %s: %v", path, err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error spans several lines: %q", err)
			}
			return
		}
		if got == nil {
			t.Fatal("Read of an existing file = nil, nil")
		}
		if err := Write(dir, *got); err != nil {
			if got.LastRunCompletedAt.UTC().Year() <= 9999 && got.LastRunCompletedAt.UTC().Year() >= 0 {
				t.Fatalf("Write of a state Read accepted: %v", err)
			}
			return
		}
		again, err := Read(dir)
		if err != nil || again == nil {
			t.Fatalf("Read after Write = %v, %v", again, err)
		}
		if !again.LastRunCompletedAt.Equal(got.LastRunCompletedAt) || again.Branch != got.Branch ||
			again.Commit != got.Commit || again.WorkingTreeRef != got.WorkingTreeRef ||
			!again.LastFullPassAt.Equal(got.LastFullPassAt) || again.EpisodeStartRun != got.EpisodeStartRun ||
			again.SessionID != got.SessionID || again.RunNumber != got.RunNumber || again.Scope != got.Scope {
			t.Errorf("round trip changed the state: %+v became %+v", got, again)
		}
	})
}
