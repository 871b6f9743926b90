package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// nestedShape puts one kind of directory with a git repository of its own
// (or something that looks like one) into the work tree of r; leftOut is
// the path a snapshot cannot hold, "" when it holds everything; uncertain
// is true when no key can stand for it (an entry named .git that is no
// repository, which git never lists: dotgit.go).
type nestedShape struct {
	name      string
	make      func(r *repo)
	leftOut   string
	uncertain bool
}

// nestedShapes are the repositories inside a work tree that users and
// agents make: a cloned dependency, a scratch clone, `git init` in a
// directory, a bare repository, a worktree-style .git file, a submodule.
func nestedShapes(t *testing.T) []nestedShape {
	other := func(r *repo, dir string) *repo {
		n := &repo{t: r.t, root: filepath.Join(r.root, dir)}
		if err := os.MkdirAll(n.root, 0o755); err != nil {
			t.Fatal(err)
		}
		n.git("init", "-q")
		return n
	}
	committed := func(r *repo, dir string) {
		n := other(r, dir)
		n.write("lib.txt", "a library\n")
		n.commitAll("lib")
	}
	elsewhere := func(r *repo) string { return filepath.Join(t.TempDir(), "gitdir") }
	return []nestedShape{
		{name: "a clone with a commit", make: func(r *repo) { committed(r, "src/dep") }},
		{name: "a repository without a commit", make: func(r *repo) {
			n := other(r, "src/dep")
			n.write("lib.txt", "not committed\n")
		}, leftOut: "src/dep/"},
		{name: "an empty repository without a commit", make: func(r *repo) { other(r, "src/dep") }, leftOut: "src/dep/"},
		{name: "a repository without a commit outside the changed directory", make: func(r *repo) {
			other(r, "scratch").write("x.txt", "x\n")
		}, leftOut: "scratch/"},
		{name: "a repository without a commit in an ignored directory", make: func(r *repo) {
			r.write(".gitignore", "tmp/\n")
			other(r, "tmp/clone").write("x.txt", "x\n")
		}},
		{name: "a bare repository", make: func(r *repo) { r.git("init", "-q", "--bare", "src/dep.git") }},
		{name: "a .git file pointing to a repository without a commit", make: func(r *repo) {
			r.git("init", "-q", "--separate-git-dir", elsewhere(r), "src/dep")
			r.write("src/dep/lib.txt", "x\n")
		}, leftOut: "src/dep/"},
		{name: "a .git file pointing to a repository with a commit", make: func(r *repo) {
			r.git("init", "-q", "--separate-git-dir", elsewhere(r), "src/dep")
			n := &repo{t: r.t, root: filepath.Join(r.root, "src/dep")}
			n.write("lib.txt", "x\n")
			n.commitAll("lib")
		}},
		{name: "a .git file pointing nowhere", make: func(r *repo) {
			r.write("src/dep/.git", "gitdir: /nonexistent/gitdir\n")
			r.write("src/dep/lib.txt", "x\n")
		}, leftOut: "src/dep/.git", uncertain: true},
		{name: "an empty .git directory", make: func(r *repo) {
			if err := os.MkdirAll(filepath.Join(r.root, "src/dep/.git"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.write("src/dep/lib.txt", "x\n")
		}, leftOut: "src/dep/.git", uncertain: true},
		{name: "a repository inside a repository without a commit", make: func(r *repo) {
			committed(r, "src/dep")
			other(r, "src/dep/inner").write("x.txt", "x\n")
		}},
		{name: "a checked-out submodule with changes", make: func(r *repo) {
			sub := newRepoAt(t, t.TempDir())
			sub.write("s.txt", "sub\n")
			sub.commitAll("sub")
			r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "src/sub")
			r.git("commit", "-q", "-m", "submodule")
			r.write("src/sub/s.txt", "changed\n")
		}},
		{name: "a gitlink without its directory", make: func(r *repo) {
			r.git("update-index", "--add", "--cacheinfo", "160000,"+r.git("rev-parse", "HEAD")+",src/ghost")
			r.git("commit", "-q", "-m", "gitlink")
		}},
		{name: "a gitlink whose directory is a repository without a commit", make: func(r *repo) {
			r.git("update-index", "--add", "--cacheinfo", "160000,"+r.git("rev-parse", "HEAD")+",src/ghost")
			r.git("commit", "-q", "-m", "gitlink")
			other(r, "src/ghost").write("x.txt", "x\n")
		}},
	}
}

// newRepoAt is newRepo in dir.
func newRepoAt(t *testing.T, dir string) *repo {
	t.Helper()
	r := &repo{t: t, root: dir}
	r.git("init", "-q", "-b", "main")
	r.git("config", "commit.gpgsign", "false")
	return r
}

// A repository of its own inside the work tree, whatever its shape, is
// never an error of a snapshot, a diff or a listing of the changes: the
// work around it is snapshotted and reviewed as ever, and what git cannot
// hold (a repository without a commit) is left out and named.
func TestNestedRepositories(t *testing.T) {
	ctx := context.Background()
	for _, sh := range nestedShapes(t) {
		t.Run(sh.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("src/a.txt", "one\n")
			r.commitAll("base")
			r.git("checkout", "-q", "-b", "feature")
			sh.make(r)
			r.write("src/a.txt", "two\n")
			r.write("src/new.txt", "new\n")

			tree, err := SnapshotTree(ctx, r.root)
			if err != nil {
				t.Fatalf("SnapshotTree: %v", err)
			}
			for _, f := range []string{"src/a.txt", "src/new.txt"} {
				if got := r.git("show", tree+":"+f); got == "" {
					t.Errorf("the snapshot lacks %s", f)
				}
			}
			for i := range 2 { // seeding the kept index, then using it
				s, err := NewTreeSnapshot(ctx, r.root)
				if err != nil {
					t.Fatalf("NewTreeSnapshot (%d): %v", i, err)
				}
				if s.Tree != tree {
					t.Errorf("kept snapshot %d: tree %s, want %s", i, s.Tree, tree)
				}
				var want []string
				if sh.leftOut != "" {
					want = []string{sh.leftOut}
				}
				if got := s.LeftOut; !slices.Equal(got, want) {
					t.Errorf("kept snapshot %d left out %q, want %q", i, s.LeftOut, want)
				}
				// What Tree leaves out, KeyTree holds: nothing moved.
				if changed, err := s.Changed(ctx); err != nil {
					t.Errorf("Changed: %v", err)
				} else if changed {
					t.Errorf("Changed right after the snapshot, with %q left out", s.LeftOut)
				}
				if (s.KeyTree == "") != sh.uncertain {
					t.Errorf("KeyTree %q (uncertain: %q), want one: %v", s.KeyTree, s.Uncertain, !sh.uncertain)
				}
				s.Close()
			}
			local := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
			diff, err := diffText(ctx, r.root, local, dirScope("src"))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			for _, f := range []string{"b/src/a.txt", "b/src/new.txt"} {
				if !strings.Contains(diff, f) {
					t.Errorf("the review diff lacks %s:\n%s", f, diff)
				}
			}
			if _, err := DiffStats(ctx, r.root, local); err != nil {
				t.Errorf("DiffStats: %v", err)
			}
			snap, err := CommitTreeOn(ctx, r.root, tree, "", "", r.git("rev-parse", "HEAD"))
			if err != nil {
				t.Fatal(err)
			}
			r.write("src/a.txt", "three\n")
			for _, spec := range []gate.DiffSpec{local, {Mode: gate.DiffUncommitted}, {Mode: gate.DiffFixBase, FixBase: snap}} {
				ch, err := ChangedFiles(ctx, r.root, spec)
				if err != nil {
					t.Errorf("ChangedFiles(%s): %v", spec.Mode, err)
				} else if !slices.Contains(ch.Files, "src/a.txt") {
					t.Errorf("ChangedFiles(%s) = %q, lacks src/a.txt", spec.Mode, ch.Files)
				}
			}
		})
	}
}

// In a project below the top level of its work tree, what a snapshot
// leaves out is named from the project root, as every path of a run is.
func TestNestedRepositoryBelowTopLevel(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("pkg/src/a.txt", "one\n")
	r.commitAll("base")
	if err := os.MkdirAll(filepath.Join(r.root, "pkg/src/dep"), 0o755); err != nil {
		t.Fatal(err)
	}
	newRepoAt(t, filepath.Join(r.root, "pkg/src/dep"))
	r.write("pkg/src/a.txt", "two\n")
	s, err := NewTreeSnapshot(ctx, filepath.Join(r.root, "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := []string{"src/dep/"}; !slices.Equal(s.LeftOut, want) {
		t.Errorf("LeftOut = %q, want %q", s.LeftOut, want)
	}
	if got := r.git("show", s.Tree+":pkg/src/a.txt"); got != "two" {
		t.Errorf("the snapshot holds pkg/src/a.txt as %q", got)
	}
}

// KeyTree holds every file a program in the work tree can read, the work
// trees of the repositories inside it included, byte for byte: an edit in
// one changes it (not Tree, which holds a gitlink or nothing), and putting
// the file back gives the same KeyTree again.
func TestKeyTreeHoldsNestedWorkTrees(t *testing.T) {
	ctx := context.Background()
	for _, sh := range nestedShapes(t) {
		t.Run(sh.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("src/a.txt", "one\n")
			r.commitAll("base")
			sh.make(r)
			if sh.uncertain {
				return // TestNestedRepositories: no KeyTree
			}
			snap := func() *TreeSnapshot {
				s, err := NewTreeSnapshot(ctx, r.root)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				if s.KeyTree == "" {
					t.Fatalf("no KeyTree: %s", s.Uncertain)
				}
				return s
			}
			first := snap()
			assertLiteral(t, r, "KeyTree", first.KeyTree, "tmp")
			var inside string
			for _, f := range []string{"src/dep/lib.txt", "src/sub/s.txt", "src/dep/inner/x.txt", "scratch/x.txt", "src/ghost/x.txt"} {
				if fileExists(filepath.Join(r.root, f)) {
					inside = f
					break
				}
			}
			if inside == "" {
				return
			}
			old, err := os.ReadFile(filepath.Join(r.root, inside))
			if err != nil {
				t.Fatal(err)
			}
			r.write(inside, "edited inside\n")
			if changed, err := first.Changed(ctx); err != nil || !changed {
				t.Errorf("Changed = %v, %v after an edit of %s", changed, err, inside)
			}
			second := snap()
			assertLiteral(t, r, "KeyTree after the edit", second.KeyTree, "tmp")
			if second.KeyTree == first.KeyTree {
				t.Errorf("an edit of %s kept KeyTree %s", inside, first.KeyTree)
			}
			r.write(inside, string(old))
			if third := snap(); third.KeyTree != first.KeyTree {
				t.Errorf("%s put back: KeyTree %s, was %s", inside, third.KeyTree, first.KeyTree)
			}
		})
	}
}
