package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A directory of the work tree that holds no file and is not ignored is
// part of what a gate sees (a workspace glob finds it, a layout lint
// lists it), though git holds no directory: making one, or removing one,
// moves the snapshot's Key, beside ignored files or directories, in a
// repository inside the work tree (whose ignore rules hide nothing) and
// as the top of one without files; a directory that holds only ignored
// files, or that the ignore rules or the log directory leave out, does
// not. Each
// member is checked on a kept index that has seen the work tree before
// (the steady stop) and on a fresh one.
func TestKeyTellsEmptyDirectories(t *testing.T) {
	type member struct {
		before, after func(r *repo) // on the committed work tree
		moves         bool
	}
	mkdir := func(p string) func(r *repo) {
		return func(r *repo) {
			if err := os.MkdirAll(filepath.Join(r.root, filepath.FromSlash(p)), 0o755); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	rmdir := func(p string) func(r *repo) {
		return func(r *repo) {
			if err := os.RemoveAll(filepath.Join(r.root, filepath.FromSlash(p))); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	nothing := func(*repo) {}
	write := func(p string) func(r *repo) { return func(r *repo) { r.write(p, "x\n") } }
	both := func(a, b func(*repo)) func(*repo) { return func(r *repo) { a(r); b(r) } }
	repoAt := func(p string, commit bool) func(r *repo) {
		return func(r *repo) {
			mkdir(p)(r)
			n := newRepoAt(r.t, filepath.Join(r.root, filepath.FromSlash(p)))
			if commit {
				n.write("in.txt", "x\n")
				n.commitAll("in")
			}
		}
	}
	// hide commits the file p and keeps it off the disk as sparse does
	// (skip-worktree, the file removed, its directory left).
	hide := func(p string) func(r *repo) {
		return func(r *repo) {
			r.write(p, "x\n")
			r.commitAll("hidden")
			r.git("update-index", "--skip-worktree", p)
			if err := os.Remove(filepath.Join(r.root, filepath.FromSlash(p))); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	sparse := func(r *repo) {
		r.write("k/x.txt", "x\n")
		r.commitAll("out of the cone")
		r.git("sparse-checkout", "set", "src")
	}
	members := map[string]member{
		"directory of a skip-worktree file removed":           {hide("k/x.txt"), rmdir("k"), true},
		"directory of a skip-worktree file made again":        {both(hide("k/x.txt"), rmdir("k")), mkdir("k"), true},
		"directory sparse keeps out made":                     {sparse, mkdir("k"), true},
		"nothing changed beside a directory sparse keeps out": {sparse, nothing, false},
		"empty directory":                                {nothing, mkdir("src/e"), true},
		"empty directory at the top":                     {nothing, mkdir("e"), true},
		"nested empty directories":                       {nothing, mkdir("src/a/b/c"), true},
		"empty directory in a new directory":             {write("src/new/f.txt"), mkdir("src/new/e"), true},
		"empty directory removed":                        {mkdir("src/e"), rmdir("src/e"), true},
		"nested empty directory removed":                 {mkdir("src/a/b"), rmdir("src/a/b"), true},
		"empty directory filled":                         {mkdir("src/e"), write("src/e/f.txt"), true},
		"directory holding an ignored file":              {nothing, write("src/d/x.log"), false},
		"ignored empty directory":                        {nothing, mkdir("build"), false},
		"empty directory in an ignored one":              {write("build/out.txt"), mkdir("build/e"), false},
		"empty directory in the log directory":           {nothing, mkdir("logs/e"), false},
		"ignored file beside an empty directory":         {mkdir("src/e"), write("src/d/x.log"), false},
		"second empty directory":                         {mkdir("src/e"), both(mkdir("src/f"), nothing), true},
		"empty directory beside an ignored file":         {write("g/x.log"), mkdir("g/e"), true},
		"empty directory beside an ignored directory":    {write("c/build/o"), mkdir("c/src"), true},
		"empty directory removed beside an ignored file": {both(write("g/x.log"), mkdir("g/e")), rmdir("g/e"), true},
		"repository without a commit made":               {nothing, repoAt("c", false), true},
		"repository without a commit removed":            {repoAt("c", false), rmdir("c"), true},
		"empty directory in a repository without files":  {repoAt("c", false), mkdir("c/e"), true},
		"empty directory in a nested repository":         {repoAt("n", true), mkdir("n/e"), true},
		"empty directory removed in a nested repository": {both(repoAt("n", true), mkdir("n/e")), rmdir("n/e"), true},
		"ignored directory in a nested repository":       {repoAt("n", true), mkdir("n/build"), true},
	}
	for name, m := range members {
		for _, steady := range []bool{true, false} {
			t.Run(name+map[bool]string{true: "/steady", false: "/fresh"}[steady], func(t *testing.T) {
				r := newRepo(t)
				r.write(".gitignore", "*.log\nbuild/\n")
				r.write("src/a.txt", "a\n")
				r.commitAll("base")
				m.before(r)
				key := func() string {
					s, err := newTreeSnapshot(context.Background(), r.root, steady, []string{"logs"})
					if err != nil {
						t.Fatalf("snapshot: %v", err)
					}
					defer s.Close()
					return s.Key()
				}
				was := key()
				if steady && key() != was {
					t.Fatalf("the key moved with nothing changed")
				}
				m.after(r)
				if now := key(); (now != was) != m.moves {
					t.Errorf("key moved = %v, want %v (%q -> %q)", now != was, m.moves, was, now)
				}
			})
		}
	}
}
