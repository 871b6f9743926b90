package place_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// Locate names the places git names, with or without GIT_DIR moving the
// repository, and keys the work trees apart.
func TestLocate(t *testing.T) {
	testenv.Setenv(t)
	top := realPath(t, t.TempDir())
	git(t, top, "init", "-q")
	git(t, top, "commit", "-q", "--allow-empty", "-m", "base")
	if err := os.MkdirAll(filepath.Join(top, "app", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(realPath(t, t.TempDir()), "wt")
	git(t, top, "worktree", "add", "-q", wt)

	for _, tc := range []struct {
		name, root                       string
		common, gitDir, prefix, worktree string
	}{
		{"top level", top, top + "/.git", top + "/.git", "", "."},
		{"subdirectory", filepath.Join(top, "app"), top + "/.git", top + "/.git", "app/", "."},
		{"linked worktree", wt, top + "/.git", top + "/.git/worktrees/wt", "", "worktrees/wt"},
	} {
		p, err := place.Locate(t.Context(), tc.root)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.CommonDir != tc.common || p.GitDir != tc.gitDir || p.Prefix != tc.prefix || p.Worktree() != tc.worktree || p.Root() != tc.root {
			t.Errorf("%s: Locate = %+v (worktree %q)", tc.name, p, p.Worktree())
		}
	}
	t.Setenv("GIT_DIR", filepath.Join(top, ".git"))
	t.Setenv("GIT_WORK_TREE", top)
	p, err := place.Locate(t.Context(), filepath.Join(top, "app"))
	if err != nil || p.Prefix != "app/" || p.CommonDir != top+"/.git" || p.TopLevel != top {
		t.Errorf("Locate with GIT_DIR set = %+v, %v", p, err)
	}
}

func TestLocateOutsideARepository(t *testing.T) {
	testenv.Setenv(t)
	if p, err := place.Locate(t.Context(), t.TempDir()); err == nil {
		t.Errorf("Locate outside a repository = %+v", p)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNearestTop: the nearest directory at or above root holding a .git
// entry, a directory or a file alike; root itself when none does.
func TestNearestTop(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"repo/.git", "repo/sub/deep", "wt/x", "none/y"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "wt", ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ root, want string }{
		{"repo", "repo"},
		{"repo/sub/deep", "repo"},
		{"wt/x", "wt"},
		{"none/y", "none/y"},
	} {
		root := filepath.Join(base, c.root)
		if c.root == "none/y" && place.NearestTop(base) != base {
			continue // TMPDIR lies inside a work tree on this host
		}
		if got := place.NearestTop(root); got != filepath.Join(base, c.want) {
			t.Errorf("NearestTop(%s) = %s, want %s", c.root, got, c.want)
		}
	}
}
