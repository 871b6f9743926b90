//go:build unix

package run

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
)

// TestNotAFileInTheWorkTree holds the run to its invariant for what the
// agent can put in the work tree that git cannot hold as a file (a FIFO,
// a socket, a device) or that cannot be read (a file with mode 000), and
// for a dangling link: the run ends, bounded (never waiting on a FIFO),
// never as an infrastructure error; a changed path of that kind fails the
// run, naming the path (the agent can remove it or put the file back),
// and one git does not list (a new FIFO: git ignores what is not a file,
// a link or a directory) is no change. Each row puts one kind where a
// committed file was, or at a new path.
func TestNotAFileInTheWorkTree(t *testing.T) {
	makers := []struct {
		kind string
		make func(p string) error
		// root: only root can make it; unreadable: only a user who is not
		// root cannot read it.
		rootOnly, notRoot bool
	}{
		{kind: "fifo", make: func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{kind: "socket", make: func(p string) error {
			l, err := net.Listen("unix", p)
			if err != nil {
				return err
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			return l.Close()
		}},
		{kind: "char device", rootOnly: true, make: func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3) }},
		{kind: "unreadable file", notRoot: true, make: func(p string) error {
			if err := os.WriteFile(p, []byte("BAD\n"), 0o644); err != nil {
				return err
			}
			return os.Chmod(p, 0)
		}},
		{kind: "dangling link", make: func(p string) error { return os.Symlink("nowhere", p) }},
	}
	for _, m := range makers {
		for _, where := range []string{"tracked", "new"} {
			t.Run(m.kind+"/"+where, func(t *testing.T) {
				if m.rootOnly && os.Geteuid() != 0 {
					t.Skip("only root can make one")
				}
				if m.notRoot && os.Geteuid() == 0 {
					t.Skip("root reads any file")
				}
				root := testProject(t, `"! grep -r BAD ."`, "stop_hook:\n  run_interval_minutes: 0\n")
				if err := os.WriteFile(filepath.Join(root, ".gauntlet/checks/lint.yml"), []byte("command: \"! grep -r BAD .\"\nworking_directory: src\ntimeout: 30\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				commit(t, root)
				rel := "src/main.txt"
				if where == "new" {
					rel = "src/odd"
				}
				p := filepath.Join(root, filepath.FromSlash(rel))
				_ = os.Remove(p)
				if err := m.make(p); err != nil {
					t.Skipf("cannot make a %s here: %v", m.kind, err)
				}
				t.Cleanup(func() { _ = os.Chmod(p, 0o644) })
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res := Execute(ctx, Options{Dir: root, Silent: true})
				if ctx.Err() != nil {
					t.Fatalf("the run took past its bound: %+v", res)
				}
				listed := gitLists(t, root, rel)
				switch {
				case res.Status == outcome.StatusInfrastructureError || res.Status == outcome.StatusError:
					t.Fatalf("%s: %s", res.Status, res.ErrorMessage)
				case listed && m.kind != "dangling link":
					if res.Status != outcome.StatusFailed || !strings.Contains(res.ErrorMessage, rel) {
						t.Fatalf("git lists %s, a %s: status %s (%q), want failed naming it", rel, m.kind, res.Status, res.ErrorMessage)
					}
				case !outcome.IsSuccess(res.Status):
					t.Fatalf("%s, a %s git holds or ignores: status %s (%q), want a pass", rel, m.kind, res.Status, res.ErrorMessage)
				}
			})
		}
	}
}

// commit commits the work tree of root (on main, where testProject put
// it), leaving a change for the next run.
func commit(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "more"}, {"checkout", "-q", "-b", "feat"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// gitLists reports whether `git status` names rel.
func gitLists(t *testing.T, root, rel string) bool {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "status", "--porcelain", "-uall", "--", rel).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)) != ""
}
