package stophook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"pgregory.net/rapid"
)

// listedByPathspec is the listing as the stop hook made it before the
// listing memo: git status asked for .gitignore files only. It lists, relative to the top level and sorted, the
// .gitignore files git reads in the work tree of p: those the index holds,
// and those on disk outside ignored directories, untracked or ignored (one
// that ignores itself, one an outer rule names). Git reads no ignore file
// inside an ignored directory, so none there can hide anything. Two git
// processes list them side by side: the index's (git ls-files, which
// keeps a large index out of this process's memory) and the disk's (git
// status, which walks the work tree once, not into ignored directories).
func listedByPathspec(ctx context.Context, p place.Place) ([]string, error) {
	type listing struct {
		names []string
		err   error
	}
	tracked := make(chan listing, 1)
	go func() {
		names, err := pathspecList(ctx, p.TopLevel, nil, "ls-files", "-z", "--cached", "--full-name", "--", gitignoreSpec)
		tracked <- listing{names, err}
	}()
	onDisk, err := pathspecList(ctx, p.TopLevel, []string{"?", "!"}, "status", "--porcelain=v2", "-z",
		"--ignored=matching", "--untracked-files=all", "--no-renames", "--", gitignoreSpec)
	t := <-tracked
	seen := map[string]bool{}
	for _, n := range append(t.names, onDisk...) {
		seen[n] = true
	}
	return slices.Sorted(maps.Keys(seen)), errors.Join(t.err, err)
}

// pathspecList runs git in dir with args and returns the .gitignore paths
// of its NUL-separated output: each record whole, or, with kinds, the path
// after a record's kind among kinds.
func pathspecList(ctx context.Context, dir string, kinds []string, args ...string) ([]string, error) {
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: dir, Args: args})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("git %s: exit %d: %s", args[0], res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	var names []string
	for rec := range bytes.SplitSeq(res.Stdout, []byte{0}) {
		n := string(rec)
		if kinds != nil {
			kind, rel, ok := strings.Cut(n, " ")
			if !ok || !slices.Contains(kinds, kind) {
				continue
			}
			n = rel
		}
		if isGitignore(n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// listingWorld is a repository the differential test rewrites.
type listingWorld struct {
	t   *rapid.T
	top string
}

func (w listingWorld) git(args ...string) {
	cmd := exec.Command("git", append([]string{"-C", w.top}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Logf("git %v: %v\n%s", args, err, out) // a refused step (nothing to commit) is a step too
	}
}

// Directories and names the steps pick from: deep enough for rules that
// reach below their directory, with a place for a repository inside.
var (
	listingDirs  = []string{".", "a", "a/b", "a/b/c", "d", "d/e", "n", "n/m", "z"}
	listingNames = []string{".gitignore", ".gitignore", "x.txt", "y.log", "keep"}
	listingRules = []string{"*", ".gitignore", "*.log", "a/", "b", "!keep", "!.gitignore", "d/e/", "/x.txt", "c", "e", "n/", "m"}
)

// step does one random thing to the work tree, the index, a repository
// inside, or the rules outside the work tree, and says what.
func (w listingWorld) step(t *rapid.T) string {
	dir := rapid.SampledFrom(listingDirs).Draw(t, "dir")
	abs := filepath.Join(w.top, filepath.FromSlash(dir))
	switch rapid.IntRange(0, 10).Draw(t, "op") {
	case 10:
		// git rewrites the index to refresh a stat, staging what it did.
		now := time.Now()
		_ = filepath.WalkDir(w.top, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, "/.git/") {
				_ = os.Chtimes(p, now, now)
			}
			return nil
		})
		w.git("update-index", "-q", "--really-refresh")
		return "refresh the index"
	case 0, 1, 2:
		name := rapid.SampledFrom(listingNames).Draw(t, "name")
		body := ""
		if name == ".gitignore" {
			body = strings.Join(rapid.SliceOfN(rapid.SampledFrom(listingRules), 0, 3).Draw(t, "rules"), "\n") + "\n"
		}
		_ = os.MkdirAll(abs, 0o755)
		_ = os.WriteFile(filepath.Join(abs, name), []byte(body), 0o644)
		return "write " + dir + "/" + name + ": " + body
	case 3:
		if rapid.Bool().Draw(t, "whole") && dir != "." {
			_ = os.RemoveAll(abs)
			return "remove " + dir
		}
		_ = os.Remove(filepath.Join(abs, ".gitignore"))
		return "remove " + dir + "/.gitignore"
	case 4:
		_ = os.MkdirAll(abs, 0o755)
		return "mkdir " + dir
	case 5:
		w.git("add", "-A", "--", ".")
		return "add -A"
	case 6:
		switch rapid.IntRange(0, 2).Draw(t, "what") {
		case 0:
			w.git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", gitignoreSpec)
			return "rm --cached every .gitignore"
		case 1:
			w.git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", dir)
			return "rm --cached " + dir
		}
		w.git("rm", "-q", "--cached", "--ignore-unmatch", "--", dir+"/.gitignore")
		return "rm --cached " + dir + "/.gitignore"
	case 7:
		w.git("add", "-f", "--", dir)
		w.git("commit", "-q", "-m", "step")
		return "add -f and commit " + dir
	case 8:
		if dir != "." {
			_ = os.MkdirAll(abs, 0o755)
			_ = exec.Command("git", "-C", abs, "init", "-q").Run()
		}
		return "init a repository in " + dir
	default:
		body := strings.Join(rapid.SliceOfN(rapid.SampledFrom(listingRules), 0, 2).Draw(t, "exclude"), "\n") + "\n"
		_ = os.WriteFile(filepath.Join(w.top, ".git", "info", "exclude"), []byte(body), 0o644)
		return "info/exclude: " + body
	}
}

// The listing taken from the memo is the listing git makes, whatever was
// done since the memo was kept: files and rules written, moved or removed,
// directories made, the index changed, repositories made inside, the rules
// outside the work tree changed. Every step happens right after a
// listing, so a change the memo missed shows. And when nothing changed,
// the memo answers (the hit rate is logged, and must be above zero).
func TestListingMemoAgreesWithGit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listing memo is kept on Linux only")
	}
	old := filestat.Margin
	filestat.Margin = 15 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
	env, err := testenv.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, k := range testenv.Unset {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	ctx := context.Background()
	hits, asked := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		w := listingWorld{t: t, top: filepath.Join(os.TempDir(), fmt.Sprintf("listing-%d", time.Now().UnixNano()))}
		defer os.RemoveAll(w.top)
		if err := os.MkdirAll(w.top, 0o755); err != nil {
			t.Fatal(err)
		}
		w.git("init", "-q")
		p, err := place.Locate(ctx, w.top)
		if err != nil {
			t.Fatal(err)
		}
		rules := func(list []string) map[string]string {
			m := map[string]string{}
			for _, f := range []string{filepath.Join(p.CommonDir, "info", "exclude"), filepath.Join(p.GitDir, "info", "sparse-checkout")} {
				m[f] = fileFingerprint(f)
			}
			for _, rel := range list {
				m[rel] = fileFingerprint(filepath.Join(p.TopLevel, filepath.FromSlash(rel)))
			}
			return m
		}
		var done []string
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			// Past the margin, the memo is kept: the next step follows it
			// at once.
			time.Sleep(20 * time.Millisecond)
			for round := range 2 {
				got, memo, err := gitignoreListing(ctx, p, os.Getenv, rules)
				want, werr := listedByPathspec(ctx, p)
				if (err == nil) != (werr == nil) {
					t.Fatalf("after %q: memo error %v, git's %v", done, err, werr)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("after %q (round %d, from the memo: %v): listed %q, git lists %q", done, round, memo, got, want)
				}
				if round == 1 {
					asked++
					if memo {
						hits++
					}
				}
			}
			done = append(done, w.step(t))
		}
	})
	t.Logf("the memo answered %d of %d listings with nothing changed", hits, asked)
	if hits == 0 {
		t.Error("the memo never answered")
	}
}

// A tracked .gitignore deleted from disk is listed while the index holds
// it and not once it is untracked: a change of the index alone, which no
// directory of the work tree shows, is a change to the memo too.
func TestListingMemoSeesTheIndex(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listing memo is kept on Linux only")
	}
	old := filestat.Margin
	filestat.Margin = 15 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
	home := t.TempDir()
	env, err := testenv.New(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	top := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", top}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.MkdirAll(filepath.Join(top, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "a", ".gitignore"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	if err := os.Remove(filepath.Join(top, "a", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := place.Locate(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	rules := func(list []string) map[string]string {
		m := map[string]string{}
		for _, rel := range list {
			m[rel] = fileFingerprint(filepath.Join(top, filepath.FromSlash(rel)))
		}
		return m
	}
	time.Sleep(20 * time.Millisecond)
	for _, c := range []struct {
		memo bool
		want []string
	}{{false, []string{"a/.gitignore"}}, {true, []string{"a/.gitignore"}}} {
		got, memo, err := gitignoreListing(ctx, p, os.Getenv, rules)
		if err != nil || memo != c.memo || !slices.Equal(got, c.want) {
			t.Fatalf("listing = %q, from the memo %v, %v; want %q, %v", got, memo, err, c.want, c.memo)
		}
	}
	git("rm", "-q", "--cached", "a/.gitignore")
	if got, memo, err := gitignoreListing(ctx, p, os.Getenv, rules); err != nil || memo || len(got) != 0 {
		t.Fatalf("after git rm --cached: listing = %q, from the memo %v, %v; want none, from git", got, memo, err)
	}
}
