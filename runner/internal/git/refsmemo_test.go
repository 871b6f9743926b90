package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// The refs memo's invariant: ResolveRefsKept answers exactly what
// ResolveRefs (git) answers in every state of the repository, whatever
// state the memo was written in; and asked again with nothing changed,
// once the files git read are old enough, it answers from the memo (the
// hit count).
//
// The states are generated (rapid): random sequences of every way found
// to move what git reads for HEAD, a base and a snapshot: commits, branch
// switches, a detached HEAD, a HEAD on a branch not born yet, the base
// moved by update-ref, refs packed, a tag or a ref under refs/ named as
// the base (git's order of names then picks another), the remote-tracking
// copy made, moved and deleted, a symbolic ref, a loose ref or the packed
// refs rewritten in place with the same size and their modification time
// put back, a replace ref made and deleted, the snapshot pruned and made
// again, and a ref naming a commit that is missing and then made (the
// ref's file never moves). Each state is asked for the bases main,
// origin/main, feature, origin and ghost, with and without a snapshot.
func TestRefsMemoAgreesWithGit(t *testing.T) {
	testenv.Setenv(t)
	shortMargin(t)
	ctx := context.Background()
	var n refsAsks
	rapid.Check(t, func(rt *rapid.T) {
		x := newRefsRepo(t)
		for range rapid.IntRange(1, 5).Draw(rt, "steps") {
			op := rapid.IntRange(0, len(refsMoves)-1).Draw(rt, "op")
			base := rapid.SampledFrom(refsBases).Draw(rt, "base")
			snap := rapid.SampledFrom([]string{"", x.snap, x.ghost}).Draw(rt, "snapshot")
			n.step(ctx, rt, x, op, base, snap)
		}
	})
	t.Logf("the memo answered %d of %d asks with nothing changed", n.hits, n.asked)
	if n.hits == 0 {
		t.Fatal("the memo never answered")
	}
}

// TestRefsMemoSequences holds the memo to git over the sequences rapid
// seldom draws whole: an object that comes back (pruned, then made again)
// while the ref or the snapshot naming it never moves, and the rewrites
// in place, each asked for every base and snapshot.
func TestRefsMemoSequences(t *testing.T) {
	testenv.Setenv(t)
	shortMargin(t)
	ctx := context.Background()
	var n refsAsks
	for _, seq := range [][]string{
		{"ghost named while missing", "snapshot and ghost made again"},
		{"unreachable commits pruned", "snapshot and ghost made again", "everything repacked", "unreachable commits pruned"},
		{"loose main rewritten in place", "packed refs rewritten in place", "loose main rewritten in place"},
		{"origin/HEAD symbolic", "origin/main made", "origin/main moved", "refs packed", "origin/main deleted"},
		{"tag main", "refs packed", "tag main deleted", "refs/feature", "a replace ref", "replace refs deleted"},
	} {
		t.Run(strings.Join(seq, ", "), func(t *testing.T) {
			x := newRefsRepo(t)
			for _, name := range append([]string{"nothing"}, seq...) {
				op := slices.IndexFunc(refsMoves, func(m refsMove) bool { return m.name == name })
				if op < 0 {
					t.Fatalf("no move %q", name)
				}
				refsMoves[op].do(x)
				for _, base := range refsBases {
					for _, snap := range []string{"", x.snap, x.ghost} {
						n.ask(ctx, t, x, name, base, snap)
					}
				}
			}
		})
	}
	t.Logf("the memo answered %d of %d asks with nothing changed", n.hits, n.asked)
}

// refsBases are the base branches the refs memo's tests ask for.
var refsBases = []string{"main", "origin/main", "feature", "origin", "ghost"}

// refsAsks counts the asks of the refs memo with nothing changed since
// the last, and the memo's answers among them.
type refsAsks struct{ asked, hits int }

// failer is what the refs memo's checks report to: a *testing.T or a
// *rapid.T.
type failer interface {
	Fatal(...any)
	Fatalf(string, ...any)
}

// step makes move op in x, then asks (ask).
func (n *refsAsks) step(ctx context.Context, t failer, x *refsRepo, op int, base, snap string) {
	refsMoves[op].do(x)
	n.ask(ctx, t, x, refsMoves[op].name, base, snap)
}

// ask asks for base and snap in x twice, once the files git read are old
// enough (the second ask with nothing changed), and fails unless both
// answers are git's; after names the last move.
func (n *refsAsks) ask(ctx context.Context, t failer, x *refsRepo, after, base, snap string) {
	time.Sleep(2 * filestat.Margin)
	loc, err := Locate(ctx, x.r.root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ResolveRefs(ctx, x.r.root, base, snap)
	if err != nil {
		t.Fatal(err)
	}
	for again := range 2 {
		hit := false
		got, err := resolveRefsWith(base, snap, func(revs []string) ([]Object, error) {
			objs, h, err := objectsKept(ctx, loc, x.r.root, revs)
			hit = h
			return objs, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s, base %q, snapshot %q (memo hit %v):\nkept %+v\ngit  %+v", after, base, snap, hit, got, want)
		}
		if again == 1 {
			n.asked++
			if hit {
				n.hits++
			}
		}
	}
}

// refsRepo is a repository for TestRefsMemoAgreesWithGit: main and feature
// with a commit each, and two commits no ref names (made the same way
// each time, so that one pruned can be made again with the same id): the
// snapshot, and ghost, which the ref ghost names once it is missing.
type refsRepo struct {
	r           *repo
	snap, ghost string
}

func newRefsRepo(t *testing.T) *refsRepo {
	r := newRepo(t)
	r.git("config", "gc.auto", "0")
	r.write("a.txt", "a\n")
	r.commitAll("base")
	r.git("branch", "feature")
	r.write("a.txt", "b\n")
	r.commitAll("second")
	x := &refsRepo{r: r}
	x.snap = x.fixedCommit("snapshot")
	x.ghost = x.fixedCommit("ghost")
	return x
}

// fixedCommit makes a commit of the empty tree with message msg and fixed
// dates: the same id each time.
func (x *refsRepo) fixedCommit(msg string) string {
	empty := x.r.git("hash-object", "-w", "-t", "tree", "/dev/null")
	cmd := exec.Command("git", "-C", x.r.root, "commit-tree", empty, "-m", msg)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2001-01-01T00:00:00Z")
	out, err := cmd.Output()
	if err != nil {
		x.r.t.Fatalf("commit-tree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// rev is the object id rev names, "" for none.
func (x *refsRepo) rev(rev string) string {
	out, _ := exec.Command("git", "-C", x.r.root, "rev-parse", "--verify", "-q", rev+"^{commit}").Output()
	return strings.TrimSpace(string(out))
}

// rewriteInPlace replaces old by new in the file at rel (below .git) in
// place, keeping its size and putting its modification time back.
func (x *refsRepo) rewriteInPlace(rel, old, new string) {
	p := filepath.Join(x.r.root, ".git", rel)
	fi, err := os.Stat(p)
	if err != nil {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil || old == "" || !strings.Contains(string(data), old) || len(old) != len(new) {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		x.r.t.Fatal(err)
	}
	_, err = f.WriteAt([]byte(strings.Replace(string(data), old, new, 1)), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.r.t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		x.r.t.Fatal(err)
	}
}

// refsMove is one change of what git reads for the refs.
type refsMove struct {
	name string
	do   func(x *refsRepo)
}

// refsMoves are the changes TestRefsMemoAgreesWithGit draws from.
var refsMoves = []refsMove{
	{"nothing", func(*refsRepo) {}},
	{"a commit", func(x *refsRepo) {
		x.r.write("a.txt", time.Now().String())
		try(x.r, "add", "-A")
		try(x.r, "commit", "-q", "-m", "step")
	}},
	{"feature checked out", func(x *refsRepo) { try(x.r, "checkout", "-q", "feature") }},
	{"main checked out", func(x *refsRepo) { try(x.r, "checkout", "-q", "main") }},
	{"HEAD detached", func(x *refsRepo) { try(x.r, "checkout", "-q", "--detach") }},
	{"HEAD on a branch not born", func(x *refsRepo) { try(x.r, "symbolic-ref", "HEAD", "refs/heads/unborn") }},
	{"main moved", func(x *refsRepo) { try(x.r, "update-ref", "refs/heads/main", "feature") }},
	{"refs packed", func(x *refsRepo) { try(x.r, "pack-refs", "--all") }},
	{"tag main", func(x *refsRepo) { try(x.r, "tag", "-f", "main", "feature") }},
	{"tag main deleted", func(x *refsRepo) { try(x.r, "tag", "-d", "main") }},
	{"refs/feature", func(x *refsRepo) { try(x.r, "update-ref", "refs/feature", "main") }},
	{"origin/main made", func(x *refsRepo) { try(x.r, "update-ref", "refs/remotes/origin/main", "feature") }},
	{"origin/main moved", func(x *refsRepo) { try(x.r, "update-ref", "refs/remotes/origin/main", "HEAD") }},
	{"origin/main deleted", func(x *refsRepo) { try(x.r, "update-ref", "-d", "refs/remotes/origin/main") }},
	{"origin/HEAD symbolic", func(x *refsRepo) {
		try(x.r, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	}},
	{"origin/HEAD deleted", func(x *refsRepo) { try(x.r, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD") }},
	{"loose main rewritten in place", func(x *refsRepo) {
		x.rewriteInPlace("refs/heads/main", x.rev("main"), x.rev("feature"))
	}},
	{"packed refs rewritten in place", func(x *refsRepo) {
		try(x.r, "pack-refs", "--all")
		x.rewriteInPlace("packed-refs", x.rev("feature"), x.rev("HEAD"))
	}},
	{"a replace ref", func(x *refsRepo) { try(x.r, "replace", "-f", x.rev("feature"), x.snap) }},
	{"replace refs deleted", func(x *refsRepo) {
		for _, ref := range strings.Fields(x.r.git("for-each-ref", "--format=%(refname:lstrip=2)", "refs/replace")) {
			try(x.r, "replace", "-d", ref)
		}
	}},
	{"unreachable commits pruned", func(x *refsRepo) { try(x.r, "prune", "--expire=now") }},
	{"snapshot and ghost made again", func(x *refsRepo) { x.fixedCommit("snapshot"); x.fixedCommit("ghost") }},
	{"ghost names its commit", func(x *refsRepo) { try(x.r, "update-ref", "--no-deref", "refs/heads/ghost", x.ghost) }},
	{"ghost named while missing", func(x *refsRepo) {
		try(x.r, "update-ref", "-d", "refs/heads/ghost")
		try(x.r, "prune", "--expire=now")
		p := filepath.Join(x.r.root, ".git", "refs", "heads", "ghost")
		if err := os.WriteFile(p, []byte(x.ghost+"\n"), 0o644); err != nil {
			x.r.t.Fatal(err)
		}
	}},
	{"everything repacked", func(x *refsRepo) { try(x.r, "repack", "-adq") }},
}
