package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// repo is a throwaway git repository.
type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	testenv.Setenv(t)
	r := &repo{t: t, root: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("config", "commit.gpgsign", "false")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) remove(name string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.root, name)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commitAll(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// Names that break shell-based or line-based tools.
const (
	spaced  = "dir with space/file one.txt"
	unicode = "ünï/cödé ✓.txt"
	quoted  = `q/it's "quoted".txt`
	dashed  = "-dash.txt"
)

// Snapshot captures the work tree as the runner's execution state does: a
// snapshot tree wrapped in a commit on HEAD recording base.
func Snapshot(ctx context.Context, root, base string, exclude ...string) (string, error) {
	tree, err := SnapshotTree(ctx, root, exclude...)
	if err != nil {
		return "", err
	}
	head, err := Head(ctx, root)
	if err != nil {
		return "", err
	}
	return CommitTreeOn(ctx, root, tree, base, "", head)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestChangedFilesModes(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("keep.txt", "k\n")
	r.write("old name.txt", "rename me\n")
	r.write("gone.txt", "delete me\n")
	r.write(".gitignore", "ignored/\n")
	r.commitAll("base")
	r.git("update-ref", "refs/remotes/origin/main", "HEAD")
	r.git("checkout", "-q", "-b", "feature")

	r.write(spaced, "1\n")
	r.write(unicode, "2\n")
	r.commitAll("committed")
	featureCommit := r.git("rev-parse", "HEAD")

	r.git("mv", "old name.txt", "new name.txt")
	r.write(quoted, "3\n")
	r.git("add", quoted)
	r.remove("gone.txt")
	r.write("keep.txt", "changed\n")
	r.write(dashed, "untracked\n")
	r.write("ignored/x.txt", "ignored\n")

	uncommitted := []string{"new name.txt", "old name.txt", quoted, "gone.txt", "keep.txt", dashed}
	tests := []struct {
		name string
		spec gate.DiffSpec
		want []string
		ref  string
	}{
		{"local", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "origin/main"}, append([]string{spaced, unicode}, uncommitted...), "origin/main"},
		{"uncommitted", gate.DiffSpec{Mode: gate.DiffUncommitted}, uncommitted, "uncommitted"},
		{"commit", gate.DiffSpec{Mode: gate.DiffCommit, Commit: featureCommit}, []string{spaced, unicode}, featureCommit + "^"},
		{"ci", gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "main", Head: featureCommit}, []string{spaced, unicode}, "main"},
		{"ci bare name resolves via origin", gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "origin/main"}, []string{spaced, unicode}, "origin/main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := ChangedFiles(ctx, r.root, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sorted(ch.Files), sorted(tt.want)) {
				t.Errorf("files = %q\nwant    %q", ch.Files, tt.want)
			}
			if ch.BaseRef != tt.ref {
				t.Errorf("BaseRef = %q, want %q", ch.BaseRef, tt.ref)
			}
			if len(ch.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", ch.Warnings)
			}
		})
	}
}

func TestChangedFilesErrors(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	first := r.commitAll("root")

	t.Run("missing base names it", func(t *testing.T) {
		_, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "origin/nope"})
		var be *BaseBranchError
		if !errors.As(err, &be) || be.Branch != "origin/nope" {
			t.Fatalf("err = %v, want BaseBranchError", err)
		}
		if !strings.Contains(err.Error(), "base_branch") || !strings.Contains(err.Error(), ".gauntlet/config.yml") {
			t.Errorf("message %q does not say how to fix it", err)
		}
	})
	t.Run("option-like base refused", func(t *testing.T) {
		if _, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "--output=x"}); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("unknown commit", func(t *testing.T) {
		_, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffCommit, Commit: "deadbeef"})
		if !errors.As(err, new(*CommitNotFoundError)) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("root commit", func(t *testing.T) {
		ch, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffCommit, Commit: first})
		if err != nil || !slices.Equal(ch.Files, []string{"a.txt"}) || ch.BaseRef != "root" {
			t.Fatalf("got %+v, %v", ch, err)
		}
	})
	t.Run("unrelated base has no merge base", func(t *testing.T) {
		u := newRepo(t)
		u.write("a.txt", "a\n")
		base := u.commitAll("root")
		u.git("checkout", "-q", "--orphan", "island")
		u.write("c.txt", "c\n")
		u.commitAll("island root")
		_, err := ChangedFiles(ctx, u.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: base})
		var nb *NoMergeBaseError
		if !errors.As(err, &nb) || nb.Branch != base || nb.Shallow {
			t.Fatalf("err = %v, want a non-shallow NoMergeBaseError", err)
		}
		if strings.Contains(err.Error(), "exit code") || !strings.Contains(err.Error(), "no merge base") {
			t.Errorf("message %q should explain, not dump git", err)
		}
	})
	t.Run("ci without base falls back to HEAD^ with a warning", func(t *testing.T) {
		r.write("b.txt", "b\n")
		r.commitAll("second")
		ch, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "nope"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ch.Files, []string{"b.txt"}) || ch.BaseRef != "HEAD^" || len(ch.Warnings) != 1 {
			t.Fatalf("got %+v", ch)
		}
	})
}

func TestNoCommitsYet(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("staged.txt", "s\n")
	r.git("add", "staged.txt")
	r.write(spaced, "u\n")

	branch, err := Branch(ctx, r.root)
	if err != nil || branch != "main" {
		t.Fatalf("Branch = %q, %v", branch, err)
	}
	if head, err := Head(ctx, r.root); err != nil || head != "" {
		t.Fatalf("Head = %q, %v", head, err)
	}
	ch, err := ChangedFiles(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "origin/main"})
	if err != nil || !slices.Equal(sorted(ch.Files), sorted([]string{"staged.txt", spaced})) {
		t.Fatalf("local = %+v, %v", ch, err)
	}
	ref, err := Snapshot(ctx, r.root, "")
	if err != nil || ref == "" {
		t.Fatalf("Snapshot = %q, %v", ref, err)
	}
	files := strings.Split(r.git("ls-tree", "-r", "--name-only", ref), "\n")
	if !slices.Contains(files, "staged.txt") || len(files) != 2 {
		t.Fatalf("snapshot holds %q", files)
	}
	d, err := diffText(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "origin/main"}, dirScope("."))
	if err != nil || !strings.Contains(d, "new file mode") {
		t.Fatalf("Diff = %q, %v", d, err)
	}
}

func TestBranchDetachedAndAncestor(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a", "a\n")
	c1 := r.commitAll("1")
	r.write("a", "b\n")
	c2 := r.commitAll("2")
	if ok, err := IsAncestor(ctx, r.root, c1, c2); err != nil || !ok {
		t.Fatalf("IsAncestor(c1, c2) = %v, %v", ok, err)
	}
	if ok, err := IsAncestor(ctx, r.root, c2, c1); err != nil || ok {
		t.Fatalf("IsAncestor(c2, c1) = %v, %v", ok, err)
	}
	r.git("checkout", "-q", "--detach", c1)
	if b, err := Branch(ctx, r.root); err != nil || b != "HEAD" {
		t.Fatalf("Branch = %q, %v", b, err)
	}
	if ok, err := ObjectExists(ctx, r.root, c2); err != nil || !ok {
		t.Fatalf("ObjectExists = %v, %v", ok, err)
	}
	if ok, err := ObjectExists(ctx, r.root, strings.Repeat("1", 40)); err != nil || ok {
		t.Fatalf("ObjectExists(bogus) = %v, %v", ok, err)
	}
}

// The snapshot must leave the user's index, stash and work tree alone.
func TestSnapshotLeavesRepoUntouched(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("tracked.txt", "v1\n")
	r.write(".gitignore", "*.log\n")
	r.commitAll("base")
	r.write("tracked.txt", "v2 unstaged\n")
	r.write("staged.txt", "staged\n")
	r.git("add", "staged.txt")
	r.write(unicode, "untracked\n")
	r.write("debug.log", "ignored\n")

	indexPath := filepath.Join(r.root, ".git", "index")
	before, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	statusBefore := r.git("status", "--porcelain=v1", "-z", "--untracked-files=all")

	ref, err := Snapshot(ctx, r.root, "")
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(indexPath)
	if !bytes.Equal(before, after) {
		t.Error("user index changed")
	}
	if s := r.git("stash", "list"); s != "" {
		t.Errorf("stash list = %q", s)
	}
	if s := r.git("status", "--porcelain=v1", "-z", "--untracked-files=all"); s != statusBefore {
		t.Errorf("status changed:\n%q\n%q", statusBefore, s)
	}
	if got := r.git("show", ref+":tracked.txt"); got != "v2 unstaged" {
		t.Errorf("snapshot tracked.txt = %q", got)
	}
	if got := r.git("show", ref+":"+unicode); got != "untracked" {
		t.Errorf("snapshot untracked = %q", got)
	}
	if out := r.git("ls-tree", "-r", "--name-only", ref); strings.Contains(out, "debug.log") {
		t.Error("snapshot holds an ignored file")
	}
	if p := r.git("rev-parse", ref+"^"); p != r.git("rev-parse", "HEAD") {
		t.Errorf("snapshot parent = %s", p)
	}
}

// Verification mode: what changed since the previous run's snapshot, and a
// commit that changes nothing in the tree is not a change.
func TestChangedSinceSnapshot(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.write("old.txt", "rename\n")
	r.commitAll("base")
	r.write("wip.txt", "untracked at snapshot\n")
	ref, err := Snapshot(ctx, r.root, "")
	if err != nil {
		t.Fatal(err)
	}
	spec := gate.DiffSpec{Mode: gate.DiffFixBase, FixBase: ref}

	r.commitAll("commit the untracked file unchanged")
	ch, err := ChangedFiles(ctx, r.root, spec)
	if err != nil || len(ch.Files) != 0 {
		t.Fatalf("after a no-op commit: %+v, %v", ch, err)
	}

	r.write("a.txt", "fixed\n")
	r.remove("b.txt")
	r.git("mv", "old.txt", "new.txt")
	r.write(quoted, "new untracked\n")
	ch, err = ChangedFiles(ctx, r.root, spec)
	want := []string{"a.txt", "b.txt", "new.txt", "old.txt", quoted}
	if err != nil || !slices.Equal(sorted(ch.Files), sorted(want)) {
		t.Fatalf("got %q, %v; want %q", ch.Files, err, want)
	}

	d, err := diffText(ctx, r.root, spec, dirScope(quoted))
	if err != nil || !strings.Contains(d, "new file mode") || !strings.Contains(d, "+new untracked") || strings.Contains(d, "a.txt") {
		t.Fatalf("Diff(quoted) = %q, %v", d, err)
	}
	st, err := DiffStats(ctx, r.root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if st.New != 2 || st.Deleted != 2 || st.Modified != 1 || st.LinesAdded != 3 || st.LinesRemoved != 3 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestDiffModesAndPathspec(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("src/a.go", "package a\n")
	r.write("docs/x.md", "x\n")
	r.commitAll("base")
	r.git("branch", "base")
	r.write("src/a.go", "package a\n// changed\n")
	r.write("docs/x.md", "y\n")
	c := r.commitAll("change")
	r.write(dashed, "dash\n")
	r.write("src/new file.go", "package a\n")

	tests := []struct {
		name   string
		spec   gate.DiffSpec
		scope  Scope
		has    []string
		hasNot []string
	}{
		{"local whole repo", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "base"}, dirScope("."), []string{"+// changed", "b/docs/x.md", "b/-dash.txt", "b/src/new file.go"}, nil},
		{"local scoped", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "base"}, dirScope("src"), []string{"+// changed", "b/src/new file.go"}, []string{"docs/x.md", "dash"}},
		{"leading dash path", gate.DiffSpec{Mode: gate.DiffUncommitted}, dirScope(dashed), []string{"+dash"}, []string{"src/"}},
		{"glob", gate.DiffSpec{Mode: gate.DiffUncommitted}, globScope("src/*.go"), []string{"b/src/new file.go"}, []string{"dash"}},
		{"commit", gate.DiffSpec{Mode: gate.DiffCommit, Commit: c}, dirScope("."), []string{"+// changed", "+y"}, []string{"new file.go"}},
		{"ci", gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "base"}, dirScope("docs"), []string{"+y"}, []string{"src/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := diffText(ctx, r.root, tt.spec, tt.scope)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.has {
				if !strings.Contains(d, s) {
					t.Errorf("diff lacks %q:\n%s", s, d)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(d, s) {
					t.Errorf("diff has %q:\n%s", s, d)
				}
			}
		})
	}
}

func TestEffectiveMode(t *testing.T) {
	tests := []struct {
		spec gate.DiffSpec
		want gate.DiffMode
	}{
		{gate.DiffSpec{Mode: gate.DiffCommit, FixBase: "abc"}, gate.DiffCommit},
		{gate.DiffSpec{FixBase: "abc", Commit: "c"}, gate.DiffFixBase},
		{gate.DiffSpec{Commit: "c", Head: "h"}, gate.DiffCommit},
		{gate.DiffSpec{Head: "h"}, gate.DiffCI},
		{gate.DiffSpec{}, gate.DiffLocal},
	}
	for _, tt := range tests {
		if got := EffectiveMode(tt.spec); got != tt.want {
			t.Errorf("EffectiveMode(%+v) = %s, want %s", tt.spec, got, tt.want)
		}
	}
}

func TestGitMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := Available(); !errors.Is(err, ErrGitMissing) {
		t.Fatalf("Available = %v", err)
	}
	if _, err := Head(context.Background(), t.TempDir()); !errors.Is(err, ErrGitMissing) {
		t.Fatalf("Head = %v", err)
	}
}

// The log directory is left out of snapshots, whether git ignores it or not,
// and the base recorded in a snapshot can be read back.
func TestSnapshotExcludeAndBase(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	base := r.commitAll("base")
	r.write("logs/check.1.log", "log\n")
	r.write("ignored-logs/check.1.log", "log\n")
	r.write(".gitignore", "ignored-logs/\n")
	r.write("b.txt", "b\n")
	ref, err := Snapshot(ctx, r.root, base, "logs", "ignored-logs")
	if err != nil {
		t.Fatal(err)
	}
	files := r.git("ls-tree", "-r", "--name-only", ref)
	if strings.Contains(files, "logs/") || !strings.Contains(files, "b.txt") {
		t.Fatalf("snapshot files:\n%s", files)
	}
	snapshotBase := func(ref string) (string, string) {
		t.Helper()
		refs, err := ResolveRefs(ctx, r.root, "main", ref)
		if err != nil {
			t.Fatal(err)
		}
		return refs.SnapshotBase, refs.SnapshotSince
	}
	if got, since := snapshotBase(ref); got != base || since != "" {
		t.Fatalf("SnapshotBase = %q, since %q; want %s", got, since, base)
	}
	if got, _ := snapshotBase(base); got != "" {
		t.Fatalf("SnapshotBase(plain commit) = %q", got)
	}
	if got, _ := snapshotBase(strings.Repeat("a", 40)); got != "" {
		t.Fatalf("SnapshotBase(missing) = %q", got)
	}
	tree := r.git("rev-parse", ref+"^{tree}")
	both, err := CommitTreeOn(ctx, r.root, tree, base, base, base)
	if err != nil {
		t.Fatal(err)
	}
	if got, since := snapshotBase(both); got != base || since != base {
		t.Fatalf("base %q, since %q; want both %s", got, since, base)
	}
	if refs, err := ResolveRefs(ctx, r.root, "main", both); err != nil || refs.SnapshotTree != tree || refs.SnapshotParent != base {
		t.Fatalf("snapshot tree %q and parent %q, want %s and %s (%v)", refs.SnapshotTree, refs.SnapshotParent, tree, base, err)
	}
	if refs, _ := ResolveRefs(ctx, r.root, "main", ""); refs.SnapshotTree != "" || refs.SnapshotParent != "" {
		t.Fatalf("no snapshot asked, yet tree %q parent %q", refs.SnapshotTree, refs.SnapshotParent)
	}
	onlySince, err := CommitTreeOn(ctx, r.root, tree, "", base, base)
	if err != nil {
		t.Fatal(err)
	}
	if got, since := snapshotBase(onlySince); got != "" || since != base {
		t.Fatalf("base %q, since %q; want since only", got, since)
	}
	if out, _ := os.ReadDir(filepath.Join(r.root, ".git")); slices.ContainsFunc(out, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), "gauntlet-index-") }) {
		t.Fatal("temporary index left in .git")
	}
}

// TestErrorsOneLine: git's failures read as one line; a repository git
// refuses names the problem and the fix, never git's command line.
func TestErrorsOneLine(t *testing.T) {
	ce := &CommandError{Args: []string{"-c", "x=y", "status", "--porcelain=v2"}, Code: 128, Stderr: "fatal: one\nhint: two\n\n"}
	if got, want := ce.Error(), "git status failed (exit code 128): fatal: one hint: two"; got != want {
		t.Errorf("CommandError = %q, want %q", got, want)
	}
	dubious := "fatal: detected dubious ownership in repository at '/srv/app'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /srv/app\n"
	for _, tc := range []struct {
		stderr, want string
	}{
		{dubious, `git refuses the repository at /srv/app: it belongs to another user ("dubious ownership"); if you trust it, run: git config --global --add safe.directory /srv/app`},
		{"fatal: not a git repository (or any of the parent directories): .git\n", "/work/p is not in a git repository: agent-gauntlet needs git to find the changes; run it inside a repository (git init creates one)"},
		{"fatal: bad revision 'x'\n", ""},
	} {
		re := repoProblem("/work/p", tc.stderr)
		got := ""
		if re != nil {
			got = re.Error()
			if !errors.Is(re, ErrRepository) {
				t.Errorf("%q does not match ErrRepository", got)
			}
		}
		if got != tc.want {
			t.Errorf("repoProblem(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// ExtractDir writes a directory as a commit holds it, leaving the work tree
// alone; a commit without it, or no commit at all, finds nothing.
func TestExtractDir(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	if found, err := ExtractDir(ctx, r.root, "HEAD", ".gauntlet", t.TempDir()); found || err != nil {
		t.Fatalf("no commit: %v, %v", found, err)
	}
	r.write("sub/.gauntlet/config.yml", "committed\n")
	r.write("sub/.gauntlet/checks/lint.yml", "command: x\n")
	r.write("other.txt", "o\n")
	r.commitAll("c")
	r.write("sub/.gauntlet/config.yml", "changed in the work tree\n")
	dest := t.TempDir()
	found, err := ExtractDir(ctx, filepath.Join(r.root, "sub"), "HEAD", ".gauntlet", dest)
	if !found || err != nil {
		t.Fatalf("ExtractDir: %v, %v", found, err)
	}
	for p, want := range map[string]string{".gauntlet/config.yml": "committed\n", ".gauntlet/checks/lint.yml": "command: x\n"} {
		if got, err := os.ReadFile(filepath.Join(dest, p)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", p, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "other.txt")); err == nil {
		t.Error("a file outside the directory was extracted")
	}
	if got, _ := os.ReadFile(filepath.Join(r.root, "sub/.gauntlet/config.yml")); string(got) != "changed in the work tree\n" {
		t.Errorf("the work tree changed: %q", got)
	}
	if found, err := ExtractDir(ctx, r.root, "HEAD", "missing", t.TempDir()); found || err != nil {
		t.Errorf("a missing directory: %v, %v", found, err)
	}
}

// CountBetween counts the commits of to that from lacks, merges and
// branches included, and refuses an argument that is not a commit name.
func TestCountBetween(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a", "1\n")
	c1 := r.commitAll("1")
	r.git("checkout", "-q", "-b", "side")
	r.write("b", "1\n")
	side := r.commitAll("side")
	r.git("checkout", "-q", "main")
	r.write("a", "2\n")
	r.commitAll("2")
	r.git("merge", "-q", "--no-edit", "side")
	top := r.git("rev-parse", "HEAD")
	for _, tc := range []struct {
		from, to string
		want     int
	}{{c1, c1, 0}, {c1, side, 1}, {c1, top, 3}, {side, top, 2}, {top, c1, 0}} {
		if n, err := CountBetween(ctx, r.root, tc.from, tc.to); err != nil || n != tc.want {
			t.Errorf("CountBetween(%.7s, %.7s) = %d, %v, want %d", tc.from, tc.to, n, err, tc.want)
		}
	}
	if _, err := CountBetween(ctx, r.root, "--all", top); err == nil {
		t.Error("CountBetween took an option for a commit")
	}
}

// shortMargin lets the memo tests trust file-system times 5 ms old (not
// filestat.Margin's two seconds) for the rest of the test.
func shortMargin(t *testing.T) {
	old := filestat.Margin
	filestat.Margin = 5 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
}
