//go:build unix

package run

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// TestPersonsExecutionStateIsKept pins this invariant: a run never writes
// over an entry at the execution state's name that is not an execution
// state the gauntlet (or the TypeScript tool, whose state it takes over)
// wrote. Whatever a person leaves there (their own file, a hard-linked
// file, a symbolic link, a directory, a FIFO) is found afterwards, as it
// was, beside the new state, and the run says where; a state the
// TypeScript tool wrote is read and replaced as before.
func TestPersonsExecutionStateIsKept(t *testing.T) {
	type left struct {
		make func(t *testing.T, path string) // what the person leaves at path
		kept bool                            // moved aside, else written over
	}
	writeFile := func(content string) func(*testing.T, string) {
		return func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := map[string]left{
		"notes":      {make: writeFile("my own notes\n"), kept: true},
		"empty":      {make: writeFile(""), kept: true},
		"json-other": {make: writeFile(`{"todo":["ship it"]}`), kept: true},
		"typescript": {make: writeFile(`{"last_run_completed_at":"2026-01-02T03:04:05.678Z","branch":"main","commit":"0123456789abcdef0123456789abcdef01234567"}`)},
		"hard-linked": {make: func(t *testing.T, p string) {
			other := filepath.Join(t.TempDir(), "notes")
			writeFile("linked notes\n")(t, other)
			if err := os.Link(other, p); err != nil {
				t.Fatal(err)
			}
		}, kept: true},
		"symlink": {make: func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "target")
			writeFile("outside\n")(t, target)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, kept: true},
		"dangling-symlink": {make: func(t *testing.T, p string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "nothing"), p); err != nil {
				t.Fatal(err)
			}
		}, kept: true},
		"directory": {make: func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile("inside\n")(t, filepath.Join(p, "f"))
		}, kept: true},
		"fifo": {make: func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, kept: true},
	}
	for name, c := range cases {
		for _, after := range []bool{false, true} {
			if after {
				// After a run the record holds the gauntlet's state: any
				// other entry put there since is a person's, a copy of the
				// TypeScript tool's state too (adversarial round 18, B4).
				name, c.kept = name+"-after-a-run", true
			}
			t.Run(name, func(t *testing.T) { checkKeptState(t, c.make, c.kept, after) })
		}
	}
}

// checkKeptState makes, at the execution state's name of a fresh project
// (after a first run when after), the entry make leaves, runs, and checks
// that the entry was moved aside as it was when kept, written over when
// not.
func checkKeptState(t *testing.T, make func(t *testing.T, path string), kept, after bool) {
	root := testProject(t, "exit 0", "")
	dir := logDir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := state.Path(dir)
	if after {
		if res := Execute(context.Background(), Options{Dir: root}); res.Status != outcome.StatusPassed {
			t.Fatalf("first run %s: %s", res.Status, res.ErrorMessage)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	make(t, path)
	before := describe(t, path)
	res := Execute(context.Background(), Options{Dir: root})
	if res.Status != outcome.StatusPassed {
		t.Fatalf("run %s: %s", res.Status, res.ErrorMessage)
	}
	if _, err := state.Read(dir); err != nil {
		t.Fatalf("no execution state written: %v", err)
	}
	aside := path + logdir.KeptStateSuffix
	console, _ := os.ReadFile(res.ConsoleLogPath)
	if !kept {
		if _, err := os.Lstat(aside); err == nil {
			t.Fatalf("a state the gauntlet may replace was moved aside")
		}
		return
	}
	if now := describe(t, aside); now != before {
		t.Fatalf("the person's entry is not kept as it was:\nbefore %s\nafter  %s", before, now)
	}
	if !strings.Contains(string(console), "was not agent-gauntlet's execution state") || !strings.Contains(string(console), aside) {
		t.Fatalf("the run does not say where the person's entry went:\n%s", console)
	}
}

// describe is what the entry at p is: its type, and its content, link
// target (and the target's content) or listing.
func describe(t *testing.T, p string) string {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		return "missing: " + err.Error()
	}
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		data, _ := os.ReadFile(target)
		return "link to " + target + ": " + string(data)
	case m.IsDir():
		names, _ := os.ReadDir(p)
		var s []string
		for _, n := range names {
			s = append(s, n.Name())
		}
		return "dir: " + strings.Join(s, ",")
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m.IsRegular():
		data, _ := os.ReadFile(p)
		return "file: " + string(data)
	}
	return fi.Mode().String()
}
