//go:build installtest

package release

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallReleaseFromTags releases a copy of the working tree (one
// commit, every module tagged), then builds each module on its own and
// installs the command the way the public module proxy serves a release:
// from the git tags, each module zipped by `git archive`. The go command
// checks each sibling it fetches against the go.sum lines the release
// wrote, so a release whose hashes differ from the tagged content fails
// here.
func TestInstallReleaseFromTags(t *testing.T) {
	ctx := context.Background()
	repo := copyRepo(t, repoRoot(t))
	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(log.String())
		}
	})

	// what a release refuses: a dirty tree, a version that cannot follow
	if err := os.WriteFile(filepath.Join(repo, "stray.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantErr(t, Cut(ctx, repo, "v0.1.0", &log), "working tree has changes")
	if err := os.Remove(filepath.Join(repo, "stray.txt")); err != nil {
		t.Fatal(err)
	}
	for v, msg := range map[string]string{
		"0.1.0":      "full semantic version",
		"v0.1":       "full semantic version",
		"v0.1.0+abc": "full semantic version",
		"v2.0.0":     "major version v2",
		"v0.0.0":     "not newer than v0.0.0",
	} {
		wantErr(t, Cut(ctx, repo, v, &log), msg)
	}

	if err := Cut(ctx, repo, "v0.1.0", &log); err != nil {
		t.Fatal(err)
	}
	head := mustGit(t, repo, "rev-parse", "HEAD")
	for _, tag := range []string{"hookproto/v0.1.0", "statecfg/v0.1.0", "runner/v0.1.0", "cli/v0.1.0", "v0.1.0"} {
		if got := mustGit(t, repo, "rev-parse", tag+"^{commit}"); got != head {
			t.Errorf("tag %s is at %s, want the release commit %s", tag, got, head)
		}
	}
	if tags := mustGit(t, repo, "tag", "--list", "magefiles/*"); tags != "" {
		t.Errorf("the build module was tagged: %s", tags)
	}
	if status := mustGit(t, repo, "status", "--porcelain"); status != "" {
		t.Errorf("the release left changes:\n%s", status)
	}
	s, err := Load(repo)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.Version(); err != nil || v != "v0.1.0" {
		t.Errorf("after the release the modules are at %q (%v), want v0.1.0", v, err)
	}
	if p := s.WorkReplacesProblems("v0.1.0"); len(p) > 0 {
		t.Errorf("go.work after the release: %v", p)
	}
	wantErr(t, Cut(ctx, repo, "v0.1.0", &log), "not newer than v0.1.0")

	// a module of the release builds on its own (GOWORK=off): the go
	// command fetches each sibling from its tag and checks it against the
	// go.sum lines the release wrote
	env := fromTags(t, repo)
	for _, m := range s.Published() {
		goCmd(t, filepath.Join(repo, m.Dir), env, "build", "./...")
		goCmd(t, filepath.Join(repo, m.Dir), env, "mod", "verify")
	}
	// and go install works from the tags
	goCmd(t, t.TempDir(), env, "install", Command+"@v0.1.0")
	gopath := strings.TrimPrefix(env[slices.IndexFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GOPATH=") })], "GOPATH=")
	out, err := exec.CommandContext(ctx, filepath.Join(gopath, "bin", "agent-gauntlet"), "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "v0.1.0" {
		t.Errorf("installed agent-gauntlet --version = %q, %v; want v0.1.0", out, err)
	}
}

// fromTags returns the environment of a go command in module mode that
// fetches the repository's modules directly from the git repository at
// repo, as the public module proxy fetches them from GitHub (the tag,
// zipped by `git archive`), third-party modules from the default proxy,
// with an empty GOPATH.
func fromTags(t *testing.T, repo string) []string {
	t.Helper()
	dir := t.TempDir()
	gitconfig := filepath.Join(dir, "gitconfig")
	cfg := "[url \"file://" + filepath.ToSlash(repo) + "\"]\n\tinsteadOf = https://" + RepoPath + "\n"
	if err := os.WriteFile(gitconfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	goproxy, err := goEnv(context.Background(), dir, "GOPROXY")
	if err != nil {
		t.Fatal(err)
	}
	gopath := filepath.Join(dir, "gopath")
	return append(os.Environ(), "GOWORK=off", "GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN=",
		"GOFLAGS=-modcacherw", "GOPROXY="+goproxy, "GOPRIVATE="+RepoPath,
		"GIT_CONFIG_GLOBAL="+gitconfig, "GIT_CONFIG_NOSYSTEM=1")
}

// goCmd runs the go command in dir with env, failing the test on error,
// and returns its output.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("(cd %s && go %s): %v\n%s", dir, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// copyRepo copies the files of the working tree at root (tracked, and
// untracked but not ignored) into a new git repository with one commit.
func copyRepo(t *testing.T, root string) string {
	t.Helper()
	repo := t.TempDir()
	files, err := treeFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		dst := filepath.Join(repo, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, dst, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// The go command copies the root LICENSE into the zip of a module in a
	// subdirectory that has none: the release's hashes must include it.
	if _, err := os.Stat(filepath.Join(repo, licenseFile)); err != nil {
		if err := os.WriteFile(filepath.Join(repo, licenseFile), []byte("test license\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_AUTHOR_NAME", "Release Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "release@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Release Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "release@example.com")
	mustGit(t, repo, "init", "-q", "-b", "main")
	mustGit(t, repo, "add", "-A")
	mustGit(t, repo, "commit", "-q", "-m", "working tree")
	return repo
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func mustGit(t *testing.T, repo string, args ...string) string {
	t.Helper()
	out, err := git(context.Background(), repo, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantErr(t *testing.T, err error, contains string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), contains) {
		t.Errorf("error = %v, want one containing %q", err, contains)
	}
}
