package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Fetched's invariant: a commit the base branch's remote-tracking ref
// names counts as the remote's only when git put it there from a
// configured remote (its newest reflog entry is a fetch, pull or clone
// that moved the ref to that commit, from that remote: named, or by its
// configured url, or implied while no other remote's refspec writes the
// ref). Every other way of moving the ref (update-ref with or without a
// message, a push from this repository, a write of the ref's file, a
// fetch with no remote configured, a remote removed since, a fetch or
// pull from a path or url that is not the remote's, from another remote
// by an explicit refspec or by its configured one) leaves it unfetched. The table moves
// refs/remotes/origin/main every way there is, over two history shapes:
// the ref ahead of the local base by a commit made elsewhere, or on a
// commit of this repository's own (the agent's work).
func TestFetchedOnlyFromARemote(t *testing.T) {
	ctx := context.Background()
	for _, tc := range fetchedMoves() {
		t.Run(tc.name, func(t *testing.T) {
			x := newMoveEnv(t)
			c := tc.move(t, x)
			if got := x.r.git("rev-parse", "refs/remotes/origin/main"); got != c {
				t.Fatalf("the ref names %s, the case meant %s", got, c)
			}
			got, err := Fetched(ctx, x.r.root, "main", c)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Fetched = %v, want %v (%s)", got, tc.want, tc.limit)
			}
			if got2, _ := Fetched(ctx, x.r.root, "origin/main", c); got2 != got {
				t.Errorf("base origin/main: Fetched = %v, base main: %v", got2, got)
			}
		})
	}
}

// cloneOf clones bare into a fresh directory, its refs stored in format.
func cloneOf(t *testing.T, bare, format string) *repo {
	t.Helper()
	return cloneInto(t, bare, filepath.Join(t.TempDir(), "clone"), format)
}

// cloneInto clones bare into dir, its refs stored in format.
func cloneInto(t *testing.T, bare, dir, format string) *repo {
	t.Helper()
	r := &repo{t: t, root: dir}
	args := []string{"clone", "-q", bare, r.root}
	if format != "files" {
		args = append(args, "--ref-format="+format)
	}
	(&repo{t: t, root: filepath.Dir(r.root)}).git(args...)
	r.git("config", "commit.gpgsign", "false")
	return r
}

// push commits on the clone's main and pushes it, returning the commit.
func (r *repo) push() string {
	r.write("other", r.git("rev-parse", "HEAD"))
	c := r.commitAll("elsewhere")
	r.git("push", "-q", "origin", "main")
	return c
}

// own commits on a side branch of the clone, leaving HEAD where it was.
func (r *repo) own() string {
	r.git("checkout", "-q", "-b", "side")
	r.write("own", "BAD")
	c := r.commitAll("own")
	r.git("checkout", "-q", "main")
	return c
}

// moveEnv is one repository cloned from the person's remote (a bare
// repository) that another clone pushes to.
type moveEnv struct {
	r, other *repo
	bare     string
}

// newMoveEnv makes a person's remote of one commit and two clones of it.
func newMoveEnv(t *testing.T) moveEnv { return newMoveEnvOf(t, "files", false) }

// newMoveEnvOf is newMoveEnv with the clones' refs stored in format
// (files, reftable) and, when many, three commits pushed by the other
// clone and pulled by the first (reflogs of many entries). Each is made
// once per test process and copied (fromTemplate), the copies' remote url
// set to the copy's own remote: Fetched reads the reflog's action and the
// configured url, and the copy changes neither.
func newMoveEnvOf(t *testing.T, format string, many bool) moveEnv {
	t.Helper()
	dst := fromTemplate(t, fmt.Sprintf("moves/%s/%t", format, many), func(dir string) {
		seed := &repo{t: t, root: dir + "-seed"}
		if err := os.MkdirAll(seed.root, 0o755); err != nil {
			t.Fatal(err)
		}
		seed.git("init", "-q", "-b", "main")
		seed.git("config", "commit.gpgsign", "false")
		seed.write("a", "a")
		seed.commitAll("a")
		bare := filepath.Join(dir, "person.git")
		seed.git("clone", "-q", "--bare", seed.root, bare)
		r, other := cloneInto(t, bare, filepath.Join(dir, "r"), format), cloneInto(t, bare, filepath.Join(dir, "other"), format)
		if many {
			for range 3 {
				other.push()
				r.git("pull", "-q", "--ff-only")
			}
		}
	})
	x := moveEnv{r: &repo{t: t, root: filepath.Join(dst, "r")}, other: &repo{t: t, root: filepath.Join(dst, "other")},
		bare: filepath.Join(dst, "person.git")}
	x.r.git("config", "remote.origin.url", x.bare)
	x.other.git("config", "remote.origin.url", x.bare)
	return x
}

// fetchedMove is one way of moving refs/remotes/origin/main: move returns
// the commit the ref should name after it, want is Fetched's answer then,
// limit says why a forged move still reads as a fetch.
type fetchedMove struct {
	name  string
	move  func(t *testing.T, x moveEnv) string
	want  bool
	limit string
}

// fetchedMoves are every way of moving the tracking ref the tests know,
// over two history shapes: the ref ahead of the local base by a commit
// made elsewhere, or on a commit of the repository's own (own, on a side
// branch).
func fetchedMoves() []fetchedMove {
	return []fetchedMove{
		{"clone", func(t *testing.T, x moveEnv) string { return x.r.git("rev-parse", "origin/main") }, true, ""},
		{"clone, then moved by hand with no reflog", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("update-ref", "refs/remotes/origin/main", c)
			x.r.git("reflog", "expire", "--expire=now", "refs/remotes/origin/main")
			return c
		}, false, ""},
		{"fetch of the person's remote", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("fetch", "-q")
			return c
		}, true, ""},
		{"fetch origin main", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("fetch", "-q", "origin", "main")
			return c
		}, true, ""},
		{"pull", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("pull", "-q", "--ff-only")
			return c
		}, true, ""},
		{"remote update", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("remote", "update")
			return c
		}, true, ""},
		{"update-ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("update-ref", "refs/remotes/origin/main", c)
			return c
		}, false, ""},
		{"update-ref -m", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("update-ref", "-m", "moved", "refs/remotes/origin/main", c)
			return c
		}, false, ""},
		{"update-ref to a fetched commit elsewhere", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("fetch", "-q", x.bare, "main:refs/heads/elsewhere")
			x.r.git("update-ref", "refs/remotes/origin/main", c)
			return c
		}, false, ""},
		{"update-ref -m worded as a fetch", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("update-ref", "-m", "fetch origin: fast-forward", "refs/remotes/origin/main", c)
			return c
		}, true, "a reflog written to read as a fetch is git's record of a fetch"},
		{"push to the person's remote", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("push", "-q", "origin", c+":refs/heads/main")
			return c
		}, false, ""},
		{"push to a remote of the agent's own", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "remove", "origin")
			mine := filepath.Join(t.TempDir(), "mine.git")
			x.r.git("init", "-q", "--bare", mine)
			x.r.git("remote", "add", "origin", mine)
			x.r.git("push", "-q", "origin", c+":refs/heads/main")
			return c
		}, false, ""},
		{"fetch from a remote of the agent's own", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			mine := filepath.Join(t.TempDir(), "mine.git")
			x.r.git("init", "-q", "--bare", mine)
			x.r.git("push", "-q", mine, c+":refs/heads/main")
			x.r.git("remote", "set-url", "origin", mine)
			x.r.git("fetch", "-q")
			return c
		}, true, "a remote configured in the repository is the remote: who configured it git does not record"},
		{"fetch into the ref with no remote configured", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "remove", "origin")
			x.r.git("fetch", "-q", ".", c+":refs/remotes/origin/main")
			return c
		}, false, ""},
		{"remote removed after a fetch", func(t *testing.T, x moveEnv) string {
			c := x.r.git("rev-parse", "origin/main")
			x.r.git("config", "--remove-section", "remote.origin")
			return c
		}, false, ""},
		{"ref file written", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("pack-refs", "--all")
			p := filepath.Join(x.r.root, ".git", "refs", "remotes", "origin", "main")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return c
		}, false, ""},
		{"fetch by the remote's url into the ref", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("fetch", "-q", x.bare, "+main:refs/remotes/origin/main")
			return c
		}, true, ""},
		{"fetch from a scratch clone into the ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("fetch", "-q", x.r.root, "+side:refs/remotes/origin/main")
			return c
		}, false, ""},
		{"pull from a scratch clone", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("fetch", "-q", x.other.root, "+main:refs/remotes/origin/main")
			x.r.git("update-ref", "-d", "refs/remotes/origin/main")
			x.r.git("pull", "-q", "--ff-only", x.other.root, "+main:refs/remotes/origin/main")
			return c
		}, false, ""},
		{"fetch from another remote into the ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "add", "mirror", x.r.root)
			x.r.git("fetch", "-q", "mirror", "+side:refs/remotes/origin/main")
			return c
		}, false, ""},
		{"fetch of another remote whose refspec writes the ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "add", "mirror", x.r.root)
			x.r.git("config", "remote.mirror.fetch", "+refs/heads/side:refs/remotes/origin/main")
			x.r.git("fetch", "-q", "mirror")
			return c
		}, false, ""},
		{"fetch --all with another remote whose refspec writes the ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "add", "zmirror", x.r.root)
			x.r.git("config", "remote.zmirror.fetch", "+refs/heads/side:refs/remotes/origin/main")
			x.r.git("fetch", "-q", "--all")
			return c
		}, false, ""},
		{"fetch --all with another remote of its own refs", func(t *testing.T, x moveEnv) string {
			c := x.other.push()
			x.r.git("remote", "add", "mirror", x.r.root)
			x.r.git("fetch", "-q", "--all")
			return c
		}, true, ""},
		{"fetch with the branch tracking another remote that writes the ref", func(t *testing.T, x moveEnv) string {
			c := x.r.own()
			x.r.git("remote", "add", "mirror", x.r.root)
			x.r.git("config", "remote.mirror.fetch", "+refs/heads/side:refs/remotes/origin/main")
			x.r.git("config", "branch.main.remote", "mirror")
			x.r.git("fetch", "-q")
			return c
		}, false, ""},
		{"fetch, then moved back by hand", func(t *testing.T, x moveEnv) string {
			before := x.r.git("rev-parse", "origin/main")
			x.other.push()
			x.r.git("fetch", "-q")
			x.r.git("update-ref", "refs/remotes/origin/main", before)
			return before
		}, false, ""},
	}
}
