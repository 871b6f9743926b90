package logdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

func TestIsOwn(t *testing.T) {
	tests := []struct {
		name string
		own  bool
	}{
		{"console.1.log", true},
		{"console.12.log", true},
		{"check_src_lint.3.log", true},
		{"check_._lint.10.log", true},
		{"check_pkg%5Fa_lint.1.log", true},
		{"review_src_qa_claude@1.2.json", true},
		{"review_src_qa_claude@1.2.log", true},
		{".execution_state", true},
		{".gauntlet-run.lock", true},
		{".debug.log", true},
		{".debug.log.1", true},
		{"previous", true},
		{".session_ref", true},
		{".stop-hook-active", true},
		{".stop-hook-notice", true},
		{".gauntlet-scratch", true},
		{".execution_state.4021.tmp", true},
		{".gauntlet-run.lock.77.tmp", true},
		{".review_x_y_claude@1.3.json.9.tmp", true},
		{"console.x.log", false},
		{"console.1.json", false},
		{"check_src_lint.1.json", false},
		{"check_lint.1.log", false},
		{"build_output_final.1.log", false},
		{"notes.1.log", false},
		{"x.10.log", false},
		{"README.md", false},
		{".gitignore", false},
		{".notes.1.tmp", false},
		{"previous2", false},
		{".debug.log.2", false},
	}
	for _, tc := range tests {
		if got := IsOwn(tc.name); got != tc.own {
			t.Errorf("IsOwn(%q) = %v, want %v", tc.name, got, tc.own)
		}
	}
}

// OpenLog never writes through something put where a log goes.
func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err) // a work tree: the record holds what OpenLog wrote
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDo := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDo(os.Symlink(victim, filepath.Join(dir, "link.1.log")))
	mustDo(os.Link(victim, filepath.Join(dir, "hard.1.log")))
	fifotest.Create(t, filepath.Join(dir, "fifo.1.log"))
	mustDo(os.Mkdir(filepath.Join(dir, "dir.1.log"), 0o755))
	for name, want := range map[string]string{
		"link.1.log": "is a symbolic link, not a regular file",
		"hard.1.log": "has other hard links, not a file agent-gauntlet writes",
		"fifo.1.log": "is a named pipe (FIFO), not a regular file",
		"dir.1.log":  "is a directory, not a regular file",
	} {
		for _, truncate := range []bool{false, true} {
			f, err := OpenLog(filepath.Join(dir, name), truncate)
			var pe *fs.PathError
			if err == nil || !errors.As(err, &pe) || pe.Err.Error() != want {
				if f != nil {
					f.Close()
				}
				t.Errorf("OpenLog(%s, %v) = %v, want %q", name, truncate, err, want)
			}
		}
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "user data" {
		t.Errorf("the linked file changed: %q, %v", data, err)
	}

	p := filepath.Join(dir, "check_src_a.1.log")
	for i, truncate := range []bool{true, false, true} {
		f, err := OpenLog(p, truncate)
		mustDo(err)
		_, err = f.WriteString("line\n")
		mustDo(err)
		var back [5]byte
		if _, err := f.ReadAt(back[:], 0); err != nil || string(back[:]) != "line\n" {
			t.Errorf("after open %d: read back %q, %v", i, back, err)
		}
		mustDo(f.Close())
		want := map[int]string{0: "line\n", 1: "line\nline\n", 2: "line\n"}[i]
		if data, _ := os.ReadFile(p); string(data) != want {
			t.Errorf("after open %d (truncate %v): %q, want %q", i, truncate, data, want)
		}
	}
}
