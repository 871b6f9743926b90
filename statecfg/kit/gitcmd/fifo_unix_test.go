//go:build unix

package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// fifoCase is one file git opens with a blocking open, and a command that
// opens it: put names where the FIFO goes in a repository made by
// fifoRepo (top, its home), after prep has run there.
type fifoCase struct {
	name string
	// prep configures the repository before the FIFO is put (git args).
	prep [][]string
	// put is the FIFO's path, from the repository's top and the home.
	put func(top, home string) string
	// dir is where the command runs, from top ("" for top itself).
	dir  string
	args []string
}

// fifoCases are git's own files of a repository, of the user and of a
// repository inside the work tree: the ones a fixed list looked at before
// git ran, and the ones it left out.
var fifoCases = []fifoCase{
	{name: "HEAD", put: inGit("HEAD"), args: []string{"rev-parse", "HEAD"}},
	{name: "index", put: inGit("index"), args: []string{"status", "--porcelain"}},
	{name: "config", put: inGit("config"), args: []string{"rev-parse", "HEAD"}},
	{name: "packed-refs", put: inGit("packed-refs"), args: []string{"rev-parse", "--verify", "-q", "refs/tags/none"}},
	{name: "config.worktree", prep: [][]string{{"config", "extensions.worktreeConfig", "true"}},
		put: inGit("config.worktree"), args: []string{"rev-parse", "HEAD"}},
	{name: "loose ref", put: inGit("refs/heads/main"), args: []string{"rev-parse", "HEAD"}},
	{name: "commit-graph", put: inGit("objects/info/commit-graph"), args: []string{"rev-list", "--count", "HEAD"}},
	{name: "info/exclude", put: inGit("info/exclude"), args: []string{"status", "--porcelain"}},
	{name: "global config", put: func(_, home string) string { return filepath.Join(home, ".gitconfig") }, args: []string{"rev-parse", "HEAD"}},
	{name: "XDG config", put: func(_, home string) string { return filepath.Join(home, ".config", "git", "config") }, args: []string{"rev-parse", "HEAD"}},
	{name: "include.path", prep: [][]string{{"config", "include.path", "../inc.fifo"}},
		put: func(top, _ string) string { return filepath.Join(top, "inc.fifo") }, args: []string{"rev-parse", "HEAD"}},
	{name: "core.attributesFile", prep: [][]string{{"config", "core.attributesFile", "../attr.fifo"}},
		put:  func(top, _ string) string { return filepath.Join(filepath.Dir(top), "attr.fifo") },
		args: []string{"check-attr", "-a", "--", "a.txt"}},
	{name: "nested HEAD", prep: [][]string{{"init", "-q", "sub"}},
		put: func(top, _ string) string { return filepath.Join(top, "sub", ".git", "HEAD") }, args: []string{"status", "--porcelain", "-uall"}},
	{name: "worktree commondir", prep: [][]string{{"worktree", "add", "-q", "-b", "w", "../wt"}},
		put: func(top, _ string) string { return filepath.Join(top, ".git", "worktrees", "wt", "commondir") },
		dir: "../wt", args: []string{"rev-parse", "HEAD"}},
}

// inGit is the path of name in the repository's git directory.
func inGit(name string) func(top, home string) string {
	return func(top, _ string) string { return filepath.Join(top, ".git", filepath.FromSlash(name)) }
}

// fifoRepo makes a repository with one commit under a fresh home, and
// returns its top level and the home.
func fifoRepo(t *testing.T) (top, home string) {
	t.Helper()
	base := t.TempDir()
	home = filepath.Join(base, "home")
	top = filepath.Join(base, "repo")
	for _, d := range []string{home, top} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if err := os.WriteFile(filepath.Join(top, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "a.txt"},
		{"-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "-m", "x"}} {
		gitT(t, top, args...)
	}
	return top, home
}

func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command(Program, append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// plant runs c's preparation in top and puts a FIFO at its file (what was
// there removed), returning the FIFO's path.
func plant(t *testing.T, c fifoCase, top, home string) string {
	t.Helper()
	for _, args := range c.prep {
		gitT(t, top, args...)
	}
	p := c.put(top, home)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	fifotest.Create(t, p)
	return p
}

// Invariant: no git call waits on a FIFO put at a file git opens, whatever
// the file: on Linux the call ends within seconds (watchAfter), well
// before any deadline, with a *WaitError naming the FIFO, recorded in the
// context's Waits; elsewhere, and for a call whose context has no
// deadline of its own, it ends at the latest at defaultTimeout. The table
// is git's own files (fifoCases) with a command that opens each.
func TestRunEndsOnAFIFOAtAnyGitFile(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	old := defaultTimeout
	defaultTimeout = 20 * time.Second
	t.Cleanup(func() { defaultTimeout = old })
	for _, c := range fifoCases {
		t.Run(c.name, func(t *testing.T) {
			top, home := fifoRepo(t)
			p := plant(t, c, top, home)
			ctx, waits := WithWaits(context.Background())
			_, err := Run(ctx, Call{Dir: filepath.Join(top, c.dir), Args: c.args})
			if runtime.GOOS != "linux" {
				if err == nil {
					t.Fatalf("git %v with a FIFO at %s: no error", c.args, p)
				}
				return
			}
			var we *WaitError
			if !errors.As(err, &we) || !errors.Is(err, ErrWaitedOnFile) {
				t.Fatalf("git %v with a FIFO at %s: %v, want a *WaitError", c.args, p, err)
			}
			if want, _ := filepath.EvalSymlinks(p); we.Path != p && we.Path != want {
				t.Fatalf("the wait names %q, want %s", we.Path, p)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(we.Named(), "FIFO") {
				t.Errorf("message %q (named %q) does not name the FIFO", err, we.Named())
			}
			if f := waits.Found(); len(f) != 1 || f[0] != we {
				t.Errorf("Waits recorded %v, want the one wait", f)
			}
			// a later call under the same context ends at once with it
			if _, err := Run(ctx, Call{Dir: top, Args: []string{"version"}}); !errors.As(err, &we) {
				t.Errorf("a later call: %v, want the recorded wait", err)
			}
		})
	}
}

// Exec watches a command its caller built as Run does.
func TestExecEndsOnAFIFO(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the system shows a FIFO's wait on Linux only")
	}
	top, home := fifoRepo(t)
	p := plant(t, fifoCases[0], top, home)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx, _ = WithWaits(ctx)
	cmd := exec.CommandContext(ctx, Program, "-C", top, "rev-parse", "HEAD")
	procgroup.Set(cmd)
	var we *WaitError
	if err := Exec(ctx, cmd); !errors.As(err, &we) || we.Path != p {
		t.Fatalf("Exec with a FIFO at HEAD: %v, want a wait naming %s", err, p)
	}
	if ctx.Err() != nil {
		t.Fatal("Exec ended at the deadline")
	}
}
