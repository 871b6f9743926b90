package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
)

// The index file answers which file git tracks in a directory as git
// itself does, in every state; where it cannot (a linked worktree), git is
// asked.
func TestTrackedInIndexAgreesWithGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	git := func(dir string, args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(root, "init", "-q", "-b", "main")
	dirs := []string{"logs", "logs/deep", "sub", "sub/logs", "other"}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	check := func(state string) {
		t.Helper()
		for _, d := range dirs {
			dir := filepath.Join(root, d)
			want, wok := trackedByGit(context.Background(), dir)
			got, ok := trackedInIndex(dir)
			if !ok || !wok || got != want {
				t.Errorf("%s, %s: index says %q (%v), git %q (%v)", state, d, got, ok, want, wok)
			}
		}
	}
	check("no index yet")
	write("a.txt")
	write("logs2/x.log")
	write("sublogs.txt")
	git(root, "add", "-A")
	check("nothing in the directories")
	write("sub/logs/1.log")
	write("logs/deep/2.log")
	git(root, "add", "-A")
	check("tracked files in them")
	git(root, "update-index", "--index-version", "4")
	check("index version 4")
	git(root, "commit", "-q", "-m", "base")
	wt := filepath.Join(t.TempDir(), "wt")
	git(root, "worktree", "add", "-q", wt)
	if _, ok := trackedInIndex(filepath.Join(wt, "logs")); ok {
		t.Error("a linked worktree's index was read without git")
	}
	if got, ok := trackedFile(context.Background(), filepath.Join(wt, "logs")); !ok || got != "logs/deep/2.log" {
		t.Errorf("linked worktree: %q, %v", got, ok)
	}
}

// trackedByGit is trackedFile's answer from git alone.
func trackedByGit(ctx context.Context, dir string) (string, bool) {
	out, err := exec.CommandContext(ctx, gitcmd.Program, "-C", dir, "ls-files", "-z", "--full-name", "--", ".").Output()
	if err != nil {
		return "", false
	}
	first, _, _ := strings.Cut(string(out), "\x00")
	return first, true
}
