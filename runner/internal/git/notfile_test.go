//go:build unix

package git

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// What git cannot hold as a file (a FIFO, a socket) where a committed
// file was, in the project or outside it, never fails a snapshot: it is
// left out (and named when it is in the project), as a file git cannot
// read is, and the rest of the work tree is held.
func TestSnapshotLeavesOutWhatIsNotAFile(t *testing.T) {
	makers := map[string]func(p string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err != nil {
				return err
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			return l.Close()
		},
	}
	for kind, mk := range makers {
		t.Run(kind, func(t *testing.T) {
			r := newRepo(t)
			r.write("pkg/a.txt", "one\n")
			r.write("other/b.txt", "one\n")
			r.write("pkg/c.txt", "one\n")
			r.commitAll("base")
			for _, p := range []string{"pkg/a.txt", "other/b.txt"} {
				r.remove(p)
				if err := mk(filepath.Join(r.root, p)); err != nil {
					t.Skipf("cannot make a %s: %v", kind, err)
				}
			}
			r.write("pkg/c.txt", "two\n")
			s, err := NewTreeSnapshot(context.Background(), filepath.Join(r.root, "pkg"))
			if err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			defer s.Close()
			if want := []string{"a.txt"}; !slices.Equal(sorted(s.LeftOut), want) {
				t.Errorf("LeftOut = %q, want %q", s.LeftOut, want)
			}
			if got := r.git("show", s.Tree+":pkg/c.txt"); got != "two" {
				t.Errorf("the snapshot holds pkg/c.txt as %q", got)
			}
		})
	}
}
