//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Whatever shape a link of the work tree has, an edit of what it reaches
// changes the snapshot's key (KeyTree and Reach), or the key cannot be
// told (Unheld, then Uncertain). Each case makes the link conf in a fresh
// repository, with out a directory outside it, and then edits what the
// link reaches.
func TestReachKeysWhatLinksLeadTo(t *testing.T) {
	ctx := context.Background()
	type env struct{ root, out string }
	write := func(t *testing.T, p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(t *testing.T, target, p string) {
		t.Helper()
		_ = os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		make   func(t *testing.T, e env)
		edit   func(t *testing.T, e env)
		unheld bool
	}{
		{"absolute out of the tree",
			func(t *testing.T, e env) { write(t, e.out+"/c", "ok"); link(t, e.out+"/c", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.out+"/c", "BAD") }, false},
		{"relative out of the tree",
			func(t *testing.T, e env) { write(t, e.out+"/c", "ok"); link(t, "../out/c", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.out+"/c", "BAD") }, false},
		{"mode out of the tree",
			func(t *testing.T, e env) { write(t, e.out+"/c", "ok"); link(t, e.out+"/c", e.root+"/conf") },
			func(t *testing.T, e env) { _ = os.Chmod(e.out+"/c", 0o755) }, false},
		{"into the tree",
			func(t *testing.T, e env) { write(t, e.root+"/data", "ok"); link(t, "data", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.root+"/data", "BAD") }, false},
		{"into the git directory",
			func(t *testing.T, e env) { link(t, ".git/description", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.root+"/.git/description", "BAD") }, false},
		{"into what the snapshot leaves out (the log directory)",
			func(t *testing.T, e env) { write(t, e.root+"/logs/x", "ok"); link(t, "logs/x", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.root+"/logs/x", "BAD") }, false},
		{"into an ignored file",
			func(t *testing.T, e env) {
				write(t, e.root+"/.gitignore", "build/\n")
				write(t, e.root+"/build/gen", "ok")
				link(t, "build/gen", e.root+"/conf")
			},
			func(t *testing.T, e env) { write(t, e.root+"/build/gen", "BAD") }, false},
		{"into an ignored file through a link in the tree",
			func(t *testing.T, e env) {
				write(t, e.root+"/.gitignore", "*.gen\n")
				write(t, e.root+"/src/x.gen", "ok")
				link(t, "src/x.gen", e.root+"/hop")
				link(t, "hop", e.root+"/conf")
			},
			func(t *testing.T, e env) { write(t, e.root+"/src/x.gen", "BAD") }, false},
		{"a directory holding ignored files",
			func(t *testing.T, e env) {
				write(t, e.root+"/.gitignore", "*.gen\n")
				write(t, e.root+"/src/x.gen", "ok")
				link(t, "src", e.root+"/conf")
			},
			func(t *testing.T, e env) { write(t, e.root+"/src/x.gen", "BAD") }, true},
		{"a chain leaving the tree",
			func(t *testing.T, e env) {
				write(t, e.out+"/c", "ok")
				write(t, e.out+"/d", "BAD")
				link(t, "c", e.out+"/hop")
				link(t, e.out+"/hop", e.root+"/hop")
				link(t, "hop", e.root+"/conf")
			},
			func(t *testing.T, e env) { link(t, "d", e.out+"/hop") }, false},
		{"a chain leaving the tree and leading back into it, re-pointed",
			func(t *testing.T, e env) {
				write(t, e.root+"/data", "ok")
				write(t, e.root+"/other", "BAD")
				link(t, e.root+"/data", e.out+"/hop")
				link(t, e.out+"/hop", e.root+"/conf")
			},
			func(t *testing.T, e env) { link(t, e.root+"/other", e.out+"/hop") }, false},
		{"dangling",
			func(t *testing.T, e env) { link(t, e.out+"/none", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.out+"/none", "BAD") }, false},
		{"a loop",
			func(t *testing.T, e env) {
				link(t, "l2", e.out+"/l1")
				link(t, "l1", e.out+"/l2")
				link(t, e.out+"/l1", e.root+"/conf")
			},
			func(t *testing.T, e env) { _ = os.Remove(e.out + "/l2"); write(t, e.out+"/l2", "BAD") }, false},
		{"a directory",
			func(t *testing.T, e env) { write(t, e.out+"/dir/c", "ok"); link(t, e.out+"/dir", e.root+"/conf") },
			func(t *testing.T, e env) { write(t, e.out+"/dir/c", "BAD") }, true},
		{"a device", func(t *testing.T, e env) { link(t, "/dev/zero", e.root+"/conf") }, nil, true},
		{"a FIFO",
			func(t *testing.T, e env) {
				if err := syscall.Mkfifo(e.out+"/fifo", 0o644); err != nil {
					t.Skip(err)
				}
				link(t, e.out+"/fifo", e.root+"/conf")
			}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.txt", "a\n")
			r.commitAll("base")
			e := env{root: r.root, out: filepath.Join(filepath.Dir(r.root), "out")}
			if err := os.MkdirAll(e.out, 0o755); err != nil {
				t.Fatal(err)
			}
			c.make(t, e)
			s, err := NewTreeSnapshot(ctx, r.root, "logs")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if c.unheld {
				if s.Unheld == "" || s.KeyTree != "" {
					t.Fatalf("held: key %q, reach %q", s.KeyTree, s.Reach)
				}
				return
			}
			if s.KeyTree == "" {
				t.Fatalf("no key: %s", s.Uncertain)
			}
			before := s.Key()
			c.edit(t, e)
			if changed, err := s.Changed(ctx); err != nil || !changed {
				t.Errorf("Changed after the edit: %v %v", changed, err)
			}
			if err := s.Retake(ctx); err != nil {
				t.Fatal(err)
			}
			if after := s.Key(); after == before && s.Unheld == "" {
				t.Errorf("the key did not change: %s", after)
			}
		})
	}
}
