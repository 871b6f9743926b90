//go:build linux

package owned_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// TestChildArg is the table of what a child process is given: a path
// below a held directory names the child's own descriptor of the deepest
// directory of it that exists, opened through no link (the n-th extra
// file is the child's descriptor 3+n, one for each directory whatever
// the number of paths below it), in an argument, an option's value or a
// variable's; anything else as it is; and a path through a link below
// the held directory, or below one gone from its name, a path where
// nothing can be made.
func TestChildArg(t *testing.T) {
	base := t.TempDir()
	store := filepath.Join(base, "store")
	logs := filepath.Join(base, "logs")
	must(t, os.Mkdir(store, 0o755))
	must(t, os.Mkdir(logs, 0o755))
	must(t, os.MkdirAll(filepath.Join(store, "scratch", "deep"), 0o755))
	must(t, os.Symlink(base, filepath.Join(store, "linked")))
	for _, d := range []string{store, logs} {
		release, err := owned.Hold(base, d)
		must(t, err)
		defer release()
	}
	var c owned.Child
	defer c.Close()
	cases := []struct{ in, want string }{
		{"GIT_INDEX_FILE=" + filepath.Join(store, "v", "index"), "GIT_INDEX_FILE=/proc/self/fd/3/v/index"},
		{"--prefix=" + filepath.Join(store, "v", "out") + "/", "--prefix=/proc/self/fd/3/v/out/"},
		{filepath.Join(logs, "a.log"), "/proc/self/fd/4/a.log"},
		{store, "/proc/self/fd/3/."},
		{filepath.Join(store, "scratch", "deep", "index"), "/proc/self/fd/5/index"},
		{filepath.Join(store, "scratch", "deep", "out") + "/", "/proc/self/fd/5/out/"},
		{filepath.Join(store, "scratch", "index"), "/proc/self/fd/6/index"},
		{filepath.Join(base, "other", "index"), filepath.Join(base, "other", "index")},
		{"GIT_INDEX_FILE=" + filepath.Join(base, "index"), "GIT_INDEX_FILE=" + filepath.Join(base, "index")},
		{"read-tree", "read-tree"},
		{"HEAD", "HEAD"},
		{"relative/path", "relative/path"},
		{"--stdin", "--stdin"},
	}
	for _, tc := range cases {
		if got := c.Arg(tc.in); got != tc.want {
			t.Errorf("Arg(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := c.Path(filepath.Join(store, "linked", "index")); !strings.HasPrefix(got, "/dev/null/") {
		t.Errorf("Path through a link below a held directory = %q, want one below /dev/null", got)
	}
	if got := len(c.Files()); got != 4 {
		t.Fatalf("Files() holds %d, want 4 (one for each directory opened)", got)
	}
	for i, want := range []string{store, logs, filepath.Join(store, "scratch", "deep"), filepath.Join(store, "scratch")} {
		fi, err := c.Files()[i].Stat()
		must(t, err)
		wfi, err := os.Stat(want)
		must(t, err)
		if !os.SameFile(fi, wfi) {
			t.Errorf("Files()[%d] is not %s", i, want)
		}
	}
	msg := "fatal: Unable to create '/proc/self/fd/5/index.lock': File exists; /proc/self/fd/3/./v"
	want := "fatal: Unable to create '" + filepath.Join(store, "scratch", "deep", "index.lock") + "': File exists; " + filepath.Join(store, "v")
	if got := c.Named(msg); got != want {
		t.Errorf("Named(%q) = %q, want %q", msg, got, want)
	}
	must(t, os.Rename(store, store+".moved"))
	must(t, os.Symlink(base, store))
	var after owned.Child
	defer after.Close()
	if got := after.Path(filepath.Join(store, "index")); !strings.HasPrefix(got, "/dev/null/") {
		t.Errorf("Path below a replaced held directory = %q, want one below /dev/null", got)
	}
	if got := after.Named(after.Path(filepath.Join(store, "index"))); got != filepath.Join(store, "index") {
		t.Errorf("Named of a path below a replaced held directory = %q", got)
	}
	if len(after.Files()) != 0 {
		t.Errorf("a replaced directory was handed to the child")
	}
}
