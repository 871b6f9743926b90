package gitdir_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// Find names what git rev-parse names, without git: a plain repository,
// a directory below its top level, a linked worktree, a submodule and a
// separate git directory.
func TestFindAgreesWithGit(t *testing.T) {
	testenv.Setenv(t)
	main := t.TempDir()
	git(t, main, "init", "-q")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "base")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)
	sub := t.TempDir()
	git(t, sub, "init", "-q")
	git(t, sub, "commit", "-q", "--allow-empty", "-m", "lib")
	git(t, main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mods/lib")
	sep := filepath.Join(t.TempDir(), "sep")
	if err := os.MkdirAll(filepath.Join(sep, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, sep, "init", "-q", "--separate-git-dir", filepath.Join(sep, "store", "gitdir"))
	for name, dir := range map[string]string{
		"plain": main, "below the top": filepath.Join(main, "mods"), "worktree": wt,
		"submodule": filepath.Join(main, "mods", "lib"), "separate git dir": sep,
	} {
		want := strings.Fields(git(t, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"))
		d, ok := gitdir.Find(dir)
		got := []string{d.TopLevel, d.GitDir, d.CommonDir}
		if !ok || len(want) != 3 {
			t.Errorf("%s: Find = %+v, %v; git says %q", name, d, ok, want)
			continue
		}
		for i := range want {
			if realPath(t, got[i]) != realPath(t, want[i]) {
				t.Errorf("%s: Find = %q, git says %q", name, got, want)
				break
			}
		}
	}
}

func TestFindOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, gitdir.Entry), []byte("not a pointer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, ok := gitdir.Find(dir); ok {
		t.Errorf("a .git file without gitdir: Find = %+v", d)
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
	return string(out)
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
