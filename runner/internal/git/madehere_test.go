package git

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// MadeHere's invariant: a commit this repository made (by any command
// that writes one: commit, amend, a merge that is no fast-forward, a
// cherry-pick, a revert, git am, a rebase's picks, a pull that merges,
// on a branch since deleted or on a detached HEAD) is made here; a
// commit another clone made, which this repository only took (fetch,
// pull and merge fast-forwards, reset, checkout, a rebase or pull
// --rebase that only fast-forwards, a branch created at it), is not. The
// table makes or takes the commit it returns every such way.
func TestMadeHereOnlyWhatThisRepositoryMade(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		made bool
		// act makes or takes a commit in x, returning it.
		act func(x *madeEnv) string
	}{
		{"commit", true, func(x *madeEnv) string { return x.commit("c") }},
		{"commit --amend", true, func(x *madeEnv) string {
			x.commit("c")
			x.r.git("commit", "-q", "--amend", "-m", "amended")
			return x.head()
		}},
		{"merge --no-ff", true, func(x *madeEnv) string {
			x.r.git("checkout", "-q", "-b", "side")
			x.commit("s")
			x.r.git("checkout", "-q", "main")
			x.r.git("merge", "-q", "--no-ff", "--no-edit", "side")
			return x.head()
		}},
		{"cherry-pick", true, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("cherry-pick", c)
			return x.head()
		}},
		{"revert", true, func(x *madeEnv) string {
			x.commit("c")
			x.r.git("revert", "--no-edit", "HEAD")
			return x.head()
		}},
		{"am", true, func(x *madeEnv) string {
			x.r.git("checkout", "-q", "-b", "side")
			x.commit("s")
			dir := x.t.TempDir()
			x.r.git("format-patch", "-q", "-1", "HEAD", "-o", dir)
			x.r.git("checkout", "-q", "main")
			x.r.git("branch", "-q", "-D", "side")
			x.r.git("am", "-q", filepath.Join(dir, "0001-s.patch"))
			return x.head()
		}},
		{"rebase pick", true, func(x *madeEnv) string {
			x.commit("mine")
			x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("rebase", "-q", "origin/main")
			return x.head()
		}},
		{"pull that merges", true, func(x *madeEnv) string {
			x.commit("mine")
			x.elsewhere()
			x.r.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
			return x.head()
		}},
		{"commit on a branch since deleted", true, func(x *madeEnv) string {
			x.r.git("checkout", "-q", "-b", "tmp")
			c := x.commit("t")
			x.r.git("checkout", "-q", "main")
			x.r.git("branch", "-q", "-D", "tmp")
			return c
		}},
		{"commit on a detached HEAD", true, func(x *madeEnv) string {
			x.r.git("checkout", "-q", "--detach")
			c := x.commit("d")
			x.r.git("checkout", "-q", "main")
			return c
		}},
		{"fetch", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			return c
		}},
		{"pull fast-forward", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("pull", "-q", "--ff-only", "origin", "main")
			return c
		}},
		{"merge fast-forward", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("merge", "-q", "--ff-only", "origin/main")
			return c
		}},
		{"reset", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("reset", "-q", "--hard", "origin/main")
			return c
		}},
		{"branch at it", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("checkout", "-q", "-b", "feat", "origin/main")
			return c
		}},
		{"rebase that fast-forwards", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("fetch", "-q", "origin")
			x.r.git("rebase", "-q", "origin/main")
			return c
		}},
		{"pull --rebase that fast-forwards", false, func(x *madeEnv) string {
			c := x.elsewhere()
			x.r.git("pull", "-q", "--rebase", "origin", "main")
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newMadeEnv(t)
			c := tc.act(x)
			got, err := MadeHere(ctx, x.r.root, []string{c, x.base})
			if err != nil {
				t.Fatal(err)
			}
			if got[c] != tc.made {
				t.Errorf("MadeHere(%s) = %v, want %v\n%s", c, got[c], tc.made, x.r.git("log", "-g", "--format=%H %gs", "HEAD", "--branches", "--"))
			}
			if got[x.base] {
				t.Errorf("the cloned base %s counts as made here", x.base)
			}
		})
	}
}

// madeEnv is a clone of a remote that another clone pushes to.
type madeEnv struct {
	t        *testing.T
	r, other *repo
	base     string
	// bare is the remote's path, for a push by URL.
	bare string
}

// newMadeEnv makes the remote with one commit made elsewhere, and the
// clone MadeHere is asked of.
func newMadeEnv(t *testing.T) *madeEnv {
	t.Helper()
	first := newRepo(t)
	first.write("a.txt", "a\n")
	base := first.commitAll("base")
	bare := filepath.Join(t.TempDir(), "remote.git")
	first.git("clone", "-q", "--bare", first.root, bare)
	return &madeEnv{t: t, r: cloneOf(t, bare, "files"), other: cloneOf(t, bare, "files"), base: base, bare: bare}
}

// commit commits a new file here.
func (x *madeEnv) commit(msg string) string {
	x.r.write(msg+".txt", msg+"\n")
	return x.r.commitAll(msg)
}

// elsewhere commits in the other clone and pushes it to the remote.
func (x *madeEnv) elsewhere() string { return x.other.push() }

// head is HEAD's commit.
func (x *madeEnv) head() string { return x.r.git("rev-parse", "HEAD") }

// A commit this repository made in any of its worktrees is made here,
// wherever MadeHere is asked from: made on a detached HEAD, on a branch
// or on a branch deleted since, in the main worktree or in a linked one,
// pushed by URL to the remote and fetched back or not, the linked
// worktree kept or removed after a stop saw it (RememberMade). The table
// generates every combination; a commit a linked worktree only took (a
// fetch and a fast-forward there) stays the remote's.
func TestMadeHereInEveryWorktree(t *testing.T) {
	ctx := context.Background()
	for _, where := range []string{"main worktree", "linked worktree"} {
		for _, head := range []string{"detached", "branch", "branch deleted"} {
			for _, pushed := range []bool{false, true} {
				for _, removed := range []bool{false, true} {
					if removed && where == "main worktree" {
						continue
					}
					for _, from := range []string{"main worktree", "another linked worktree"} {
						name := fmt.Sprintf("%s/%s/pushed=%v/removed=%v/asked from %s", where, head, pushed, removed, from)
						t.Run(name, func(t *testing.T) {
							x := newMadeEnv(t)
							asked := x.linked("asked", "--detach", "HEAD")
							w := x.r
							if where == "linked worktree" {
								w = x.linked("wt", headArgs(head)...)
							} else {
								x.r.git(append([]string{"checkout", "-q"}, headArgs(head)...)...)
							}
							w.write("sneak.txt", "BAD\n")
							c := w.commitAll("sneak")
							if pushed {
								w.git("push", "-q", x.bare, "HEAD:refs/heads/main")
								x.r.git("fetch", "-q", "origin")
							}
							if where == "main worktree" {
								x.r.git("checkout", "-q", "main")
							} else {
								w.git("checkout", "-q", "--detach")
							}
							if head == "branch deleted" {
								x.r.git("branch", "-q", "-D", "work")
							}
							x.remember()
							if removed {
								x.r.git("worktree", "remove", "--force", w.root)
							}
							root := x.r.root
							if from != "main worktree" {
								root = asked.root
							}
							got, err := MadeHere(ctx, root, []string{c, x.base})
							if err != nil {
								t.Fatal(err)
							}
							if !got[c] {
								t.Errorf("MadeHere(%s) = false: a commit made here counts as the remote's", c)
							}
							if got[x.base] {
								t.Errorf("the cloned base %s counts as made here", x.base)
							}
						})
					}
				}
			}
		}
	}
	t.Run("taken in a linked worktree", func(t *testing.T) {
		x := newMadeEnv(t)
		w := x.linked("wt", "--detach", "HEAD")
		c := x.elsewhere()
		w.git("fetch", "-q", "origin")
		w.git("merge", "-q", "--ff-only", "origin/main")
		x.remember()
		x.r.git("worktree", "remove", "--force", w.root)
		got, err := MadeHere(ctx, x.r.root, []string{c})
		if err != nil {
			t.Fatal(err)
		}
		if got[c] {
			t.Errorf("a commit another clone made, fast-forwarded to in a linked worktree, counts as made here")
		}
	})
}

// headArgs are the arguments of a checkout (or worktree add) of the
// remote's main for head: detached, or on a new branch "work".
func headArgs(head string) []string {
	if head == "detached" {
		return []string{"--detach", "origin/main"}
	}
	return []string{"-b", "work", "origin/main"}
}

// linked adds a linked worktree named name, checked out by args (worktree
// add's), and returns it.
func (x *madeEnv) linked(name string, args ...string) *repo {
	dir := filepath.Join(x.t.TempDir(), name)
	a := append([]string{"worktree", "add", "-q"}, args[:len(args)-1]...)
	x.r.git(append(a, dir, args[len(args)-1])...)
	return &repo{t: x.t, root: dir}
}

// remember is a stop seeing the repository (RememberMade).
func (x *madeEnv) remember() {
	x.t.Helper()
	loc, err := Locate(context.Background(), x.r.root)
	if err == nil {
		err = RememberMade(context.Background(), x.r.root, loc)
	}
	if err != nil {
		x.t.Fatal(err)
	}
}
