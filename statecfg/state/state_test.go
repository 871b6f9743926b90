package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

func TestWriteRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs", "nested") // created by Write
	at := time.Date(2026, 1, 27, 11, 0, 0, 123000000, time.FixedZone("CET", 3600))
	in := State{LastRunCompletedAt: at, Branch: "feature/<x>", Commit: "abc123", WorkingTreeRef: "def456"}
	if err := Write(dir, in); err != nil {
		t.Fatalf("Write: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "last_run_completed_at": "2026-01-27T10:00:00.123Z",
  "branch": "feature/<x>",
  "commit": "abc123",
  "working_tree_ref": "def456"
}
`
	if string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	fi, err := os.Stat(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !got.LastRunCompletedAt.Equal(at) || got.Branch != in.Branch || got.Commit != in.Commit || got.WorkingTreeRef != in.WorkingTreeRef {
		t.Errorf("Read = %+v, want %+v", got, in)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("log dir holds %d entries, want only %s (temporary file left behind?)", len(entries), File)
	}
}

// The fields of this tool's own round-trip; a file the TypeScript tool wrote
// reads with them zero; a wrong value of one of them reads as zero without
// making the state unreadable.
func TestOwnFields(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC)
	in := State{LastRunCompletedAt: at, Branch: "main", Commit: "c", LastFullPassAt: at.Add(-time.Minute),
		EpisodeStartRun: 4, SessionID: "0d46d0c0-7415", RunNumber: 3, Scope: "local main",
		PreExisting: []string{"check:.:go-vet"}, ReviewDefinitions: map[string]string{"review:.:code-quality": "3f9a"}}
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, File))
	for _, want := range []string{`"last_full_pass_completed_at": "2026-01-27T09:59:00Z"`, `"episode_start_run": 4`, `"session_id": "0d46d0c0-7415"`, `"run_number": 3`, `"change_scope": "local main"`, `"pre_existing_checks": [`, `"review_definitions": {`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
	got, err := Read(dir)
	if err != nil || !got.LastFullPassAt.Equal(in.LastFullPassAt) || got.EpisodeStartRun != 4 || got.SessionID != in.SessionID ||
		got.RunNumber != 3 || got.Scope != "local main" ||
		len(got.PreExisting) != 1 || got.PreExisting[0] != "check:.:go-vet" ||
		len(got.ReviewDefinitions) != 1 || got.ReviewDefinitions["review:.:code-quality"] != "3f9a" {
		t.Fatalf("Read = %+v, %v", got, err)
	}
	for _, content := range []string{
		`{"last_run_completed_at":"2026-01-27T10:00:00.000Z","branch":"main","commit":"c","working_tree_ref":"d"}`,
		`{"last_run_completed_at":"2026-01-27T10:00:00.000Z","branch":"main","commit":"c","last_full_pass_completed_at":3,"episode_start_run":"2","session_id":false,"run_number":"3","change_scope":"local main","pre_existing_checks":"check:.:x","review_definitions":["x"]}`,
		`{"last_run_completed_at":"2026-01-27T10:00:00.000Z","branch":"main","commit":"c","last_full_pass_completed_at":"soon","episode_start_run":-3,"run_number":3,"change_scope":7,"review_definitions":{"review:.:q":1}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, File), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil || !got.LastRunCompletedAt.Equal(at) || got.Commit != "c" ||
			!got.LastFullPassAt.IsZero() || got.EpisodeStartRun != 0 || got.SessionID != "" || got.RunNumber != 0 || got.Scope != "" || got.PreExisting != nil || got.ReviewDefinitions != nil {
			t.Errorf("Read(%s) = %+v, %v", content, got, err)
		}
	}
}

func TestWriteOmitsEmptyWorkingTreeRef(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, State{LastRunCompletedAt: time.Unix(0, 0), Branch: "main", Commit: "c"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, File))
	if strings.Contains(string(data), "working_tree_ref") {
		t.Errorf("file has working_tree_ref:\n%s", data)
	}
}

func TestWriteRemovesLegacySessionRef(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, LegacySessionRefFile)
	if err := os.WriteFile(ref, []byte("abc123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, State{LastRunCompletedAt: time.Unix(0, 0), Branch: "main", Commit: "c"}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if _, err := os.Lstat(ref); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there after Write (stat error %v)", LegacySessionRefFile, err)
	}
	// Without a legacy file, and with one that cannot be removed (a
	// non-empty directory), Write still succeeds: the deletion is best effort.
	if err := Write(dir, State{Branch: "main"}); err != nil {
		t.Errorf("Write without %s: %v", LegacySessionRefFile, err)
	}
	if err := os.MkdirAll(filepath.Join(ref, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, State{Branch: "main"}); err != nil {
		t.Errorf("Write with an undeletable %s: %v", LegacySessionRefFile, err)
	}
	if got, err := Read(dir); err != nil || got == nil || got.Branch != "main" {
		t.Errorf("Read = %+v, %v", got, err)
	}
}

// Only a regular .session_ref is the TypeScript tool's: an empty
// directory or a symbolic link of that name stays.
func TestWriteKeepsOtherSessionRefs(t *testing.T) {
	for name, mk := range map[string]func(string) error{
		"empty directory": func(p string) error { return os.Mkdir(p, 0o755) },
		"symbolic link":   func(p string) error { return os.Symlink("elsewhere", p) },
	} {
		dir := t.TempDir()
		ref := filepath.Join(dir, LegacySessionRefFile)
		if err := mk(ref); err != nil {
			t.Fatal(err)
		}
		if err := Write(dir, State{Branch: "main"}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(ref); err != nil {
			t.Errorf("%s: deleted by Write", name)
		}
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    *State
		corrupt string // "" when valid
	}{
		{name: "TypeScript ISO string",
			content: `{"last_run_completed_at":"2026-01-27T10:00:00.000Z","branch":"main","commit":"abc","working_tree_ref":"def"}`,
			want:    &State{LastRunCompletedAt: time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC), Branch: "main", Commit: "abc", WorkingTreeRef: "def"}},
		{name: "offset timestamp, no working tree ref, extra fields",
			content: `{"last_run_completed_at":"2026-01-27T12:00:00+02:00","branch":"HEAD","commit":"abc","other":1}`,
			want:    &State{LastRunCompletedAt: time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC), Branch: "HEAD", Commit: "abc"}},
		{name: "empty file", content: "", corrupt: "unexpected end of JSON input"},
		{name: "not JSON", content: "abc123\n", corrupt: "invalid character"},
		{name: "JSON array", content: `[]`, corrupt: "cannot unmarshal array"},
		{name: "missing timestamp", content: `{"branch":"main","commit":"abc"}`, corrupt: "last_run_completed_at is missing"},
		{name: "missing branch", content: `{"last_run_completed_at":"2026-01-27T10:00:00Z","commit":"abc"}`, corrupt: "branch is missing"},
		{name: "missing commit", content: `{"last_run_completed_at":"2026-01-27T10:00:00Z","branch":"main"}`, corrupt: "commit is missing"},
		{name: "null commit", content: `{"last_run_completed_at":"2026-01-27T10:00:00Z","branch":"main","commit":null}`, corrupt: "commit is missing"},
		{name: "number branch", content: `{"last_run_completed_at":"2026-01-27T10:00:00Z","branch":1,"commit":"abc"}`, corrupt: "cannot unmarshal number"},
		{name: "bad timestamp", content: `{"last_run_completed_at":"yesterday","branch":"main","commit":"abc"}`, corrupt: `"yesterday" is not an RFC 3339 timestamp`},
		{name: "number timestamp", content: `{"last_run_completed_at":1769508000000,"branch":"main","commit":"abc"}`, corrupt: "cannot unmarshal number"},
		{name: "truncated", content: `{"last_run_completed_at":"2026-01-27T10:00:00Z","bra`, corrupt: "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Read(dir)
			if tc.corrupt != "" {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Read error = %v, want ErrCorrupt", err)
				}
				if got != nil {
					t.Errorf("Read returned a state with an error")
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.corrupt) {
					t.Errorf("error %q does not name %s and %q", err, path, tc.corrupt)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !got.LastRunCompletedAt.Equal(tc.want.LastRunCompletedAt) || got.Branch != tc.want.Branch ||
				got.Commit != tc.want.Commit || got.WorkingTreeRef != tc.want.WorkingTreeRef {
				t.Errorf("Read = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadAbsent(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		got, err := Read(dir)
		if got != nil || err != nil {
			t.Errorf("Read(%s) = %v, %v; want nil, nil", dir, got, err)
		}
	}
}

// A state that is no regular file is an error naming the file once (not
// "read X: read X: ..."); a FIFO is one too, never a hang (the stop hook
// reads the state on every stop).
func TestReadUnreadable(t *testing.T) {
	for kind, mk := range map[string]func(string) error{
		"a directory, not a regular file":         func(p string) error { return os.Mkdir(p, 0o755) },
		"a named pipe (FIFO), not a regular file": fifotest.Make,
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, File)
		if err := mk(path); errors.Is(err, errors.ErrUnsupported) {
			t.Log(err) // no FIFOs on Windows
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		_, err := Read(dir)
		want := "read " + path + ": is " + kind
		if err == nil || errors.Is(err, ErrCorrupt) || err.Error() != want {
			t.Errorf("Read = %v, want %q", err, want)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "logs"), State{}); err == nil {
		t.Error("Write under a file succeeded")
	}
	// A directory in place of the state file: the rename fails and no
	// temporary file is left behind.
	if err := os.Mkdir(filepath.Join(dir, File), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, File, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, State{Branch: "b"}); err == nil || !strings.Contains(err.Error(), File) {
		t.Errorf("Write over a directory = %v, want an error naming %s", err, File)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, File+".*.tmp"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestConcurrentWriters checks that readers never see a torn file while
// many goroutines write, and that the final file is one writer's state.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const writers, rounds = 16, 20
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds+1)
	done := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := Read(dir); err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				s := State{
					LastRunCompletedAt: base.Add(time.Duration(w) * time.Minute),
					Branch:             fmt.Sprintf("branch-%d", w),
					Commit:             strings.Repeat(fmt.Sprint(w%10), 40),
					WorkingTreeRef:     fmt.Sprintf("ref-%d-%d", w, r),
				}
				if err := Write(dir, s); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	<-readerDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := Read(dir)
	if err != nil || got == nil {
		t.Fatalf("final Read = %v, %v", got, err)
	}
	var w int
	if _, err := fmt.Sscanf(got.Branch, "branch-%d", &w); err != nil {
		t.Fatalf("final branch %q", got.Branch)
	}
	if got.Commit != strings.Repeat(fmt.Sprint(w%10), 40) || !got.LastRunCompletedAt.Equal(base.Add(time.Duration(w)*time.Minute)) {
		t.Errorf("final state mixes writers: %+v", got)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, File+".*.tmp"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
