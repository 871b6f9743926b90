//go:build unix

package logdir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInstallNeverOverAPersonsFile pins Install's invariant: a finished
// pending log lands at its name only where nothing is, or where the file
// is one the gauntlet wrote; whatever else is there when the command ends
// (a person's file that appeared meanwhile, a link, a directory, a FIFO,
// a hard-linked file) stays as it was, and the pending log is gone either
// way. The table is every kind of entry a log's name can hold.
func TestInstallNeverOverAPersonsFile(t *testing.T) {
	for _, c := range []struct {
		name string
		put  func(t *testing.T, path string) // what is at the log's name
		ok   bool
	}{
		{name: "nothing", put: func(*testing.T, string) {}, ok: true},
		{name: "the gauntlet's own", put: func(t *testing.T, p string) {
			f, err := OpenLog(p, true)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("an earlier log\n")
			f.Close()
			if err := Note(p, false); err != nil {
				t.Fatal(err)
			}
		}, ok: true},
		{name: "a person's file", put: func(t *testing.T, p string) { write(t, p, "mine\n") }},
		{name: "a symbolic link", put: func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "target")
			write(t, target, "outside\n")
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a directory", put: func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a FIFO", put: func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "gauntlet_logs")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := Start(dir); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "check_._x.1.log")
			pending, err := MakePending(root, "pending-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(pending)
			if inside(root, pending) {
				t.Fatalf("pending directory %s lies inside the project %s", pending, root)
			}
			f, err := OpenPending(pending, filepath.Base(path))
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("the new log\n")
			f.Close()
			c.put(t, path) // appears while the command runs
			before := entry(path)
			err = Install(f.Name(), path)
			if _, serr := os.Lstat(f.Name()); serr == nil {
				t.Fatal("the pending log is left behind")
			}
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				if _, wrote := Held(path, false); !wrote {
					t.Fatal("the installed log is not recorded as the gauntlet's")
				}
				if got, _ := os.ReadFile(path); string(got) != "the new log\n" {
					t.Fatalf("installed %q", got)
				}
				return
			}
			if err == nil {
				t.Fatal("installed over what is not the gauntlet's")
			}
			if after := entry(path); after != before {
				t.Fatalf("the entry changed: %s, was %s", after, before)
			}
		})
	}
}

// entry describes what is at p: its type and, for a file, its content.
func entry(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return err.Error()
	}
	if fi.Mode().IsRegular() {
		data, _ := os.ReadFile(p)
		return "file " + string(data)
	}
	target, _ := os.Readlink(p)
	return fi.Mode().Type().String() + " " + target
}

// write writes content at p.
func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMakePendingOutsideTheProject: a TMPDIR inside the project, or
// inside the work tree of a project in a subdirectory (whose checks may
// read the whole work tree), is not used.
func TestMakePendingOutsideTheProject(t *testing.T) {
	for _, c := range []struct{ name, project, tmp string }{
		{"in the project", ".", "tmp"},
		{"in the project below the top", "proj", "proj/tmp"},
		{"in the work tree beside the project", "proj", ".tmp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			root := filepath.Join(top, c.project)
			for _, d := range []string{".git", c.tmp, c.project} {
				if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("TMPDIR", filepath.Join(top, c.tmp))
			dir, err := MakePending(root, "pending")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if inside(top, dir) || strings.HasPrefix(dir, top) {
				t.Fatalf("pending directory %s lies inside the work tree %s", dir, top)
			}
		})
	}
}

// TestSweepPending: the next run removes what a run of the same project
// killed outright left in the temporary directory (every kind of pending
// directory), and nothing else: another project's, a link or a file of a
// matching name, a person's directory of another name.
func TestSweepPending(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root, other := t.TempDir(), t.TempDir()
	var mine []string
	for _, kind := range []string{"logs", "console", "logs"} {
		dir, err := MakePending(root, kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "check.1.log"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mine = append(mine, dir)
	}
	theirs, err := MakePending(other, "logs")
	if err != nil {
		t.Fatal(err)
	}
	target := t.TempDir()
	keep := []string{theirs, filepath.Join(tmp, "agent-gauntlet-notes")}
	if err := os.Mkdir(keep[1], 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, pendingPrefix(root, "logs")+"link")
	file := filepath.Join(tmp, pendingPrefix(root, "logs")+"file")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, link, file)
	if n := SweepPending(root); n != len(mine) {
		t.Fatalf("SweepPending removed %d, want %d", n, len(mine))
	}
	for _, p := range mine {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left", p)
		}
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target was removed: %v", err)
	}
}
