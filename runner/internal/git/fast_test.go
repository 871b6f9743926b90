package git

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// uncommittedByDiffs is uncommittedFiles the long way: the three listings
// `git status` stands in for.
func uncommittedByDiffs(t *testing.T, ctx context.Context, root string) []string {
	t.Helper()
	staged, err := diffNames(ctx, root, "--cached", "--")
	if err != nil {
		t.Fatal(err)
	}
	unstaged, err := diffNames(ctx, root, "--")
	if err != nil {
		t.Fatal(err)
	}
	out, err := output(ctx, root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", ".")
	if err != nil {
		t.Fatal(err)
	}
	return union(staged, unstaged, splitZ(out))
}

// One `git status` lists exactly what the name-only diffs and ls-files
// list, in the same order, whatever state the files are in.
func TestUncommittedMatchesDiffs(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "old.txt", spaced, unicode, "conflict.txt"} {
		r.write(f, f+"\n")
	}
	r.write(".gitignore", "ignored/\n*.log\n")
	r.commitAll("base")

	// A merge conflict: an unmerged entry.
	r.git("checkout", "-q", "-b", "other")
	r.write("conflict.txt", "theirs\n")
	r.commitAll("theirs")
	r.git("checkout", "-q", "main")
	r.write("conflict.txt", "ours\n")
	r.commitAll("ours")
	if err := exec.Command("git", "-C", r.root, "merge", "-q", "other").Run(); err == nil {
		t.Fatal("merge should conflict")
	}

	r.write("a.txt", "staged\n")
	r.git("add", "a.txt")
	r.write("a.txt", "staged then changed\n")
	r.write("b.txt", "unstaged\n")
	r.git("rm", "-q", "c.txt")
	r.remove("d.txt")
	r.write("e.txt", "staged and reverted\n")
	r.git("add", "e.txt")
	r.write("e.txt", "e.txt\n")
	r.git("mv", "old.txt", "new.txt")
	r.write("ita.txt", "intent to add\n")
	r.git("add", "-N", "ita.txt")
	r.write(quoted, "untracked\n")
	r.write(dashed, "untracked\n")
	r.write("dir/deep/x.txt", "untracked in a new directory\n")
	r.write("ignored/x.txt", "ignored\n")
	r.write("noise.log", "ignored\n")
	r.write(spaced, "changed\n")

	got, err := uncommittedFiles(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	want := uncommittedByDiffs(t, ctx, r.root)
	if !slices.Equal(got, want) {
		t.Fatalf("status lists\n%q\nthe diffs list\n%q", got, want)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "new.txt", "old.txt", "ita.txt", "conflict.txt", quoted, dashed, "dir/deep/x.txt", spaced} {
		if !slices.Contains(got, f) {
			t.Errorf("%q missing from %q", f, got)
		}
	}
}

func TestParseStatus(t *testing.T) {
	out := strings.Join([]string{
		"# stash 2",
		"1 M. N... 100644 100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 staged name.txt",
		"1 .M N... 100644 100644 100644 1111111111111111111111111111111111111111 1111111111111111111111111111111111111111 unstaged.txt",
		"1 MD N... 100644 100644 000000 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 both.txt",
		"2 R. N... 100644 100644 100644 1111111111111111111111111111111111111111 1111111111111111111111111111111111111111 R100 new name.txt",
		"old name.txt",
		"u UU N... 100644 100644 100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 3333333333333333333333333333333333333333 conflict.txt",
		"? un tracked.txt",
		"! ignored.txt",
		"",
	}, "\x00")
	staged, unstaged, untracked, err := parseStatus([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	// With an unmerged entry (which status lists last) each list is sorted.
	if want := []string{"both.txt", "conflict.txt", "new name.txt", "old name.txt", "staged name.txt"}; !slices.Equal(staged, want) {
		t.Errorf("staged = %q, want %q", staged, want)
	}
	if want := []string{"both.txt", "conflict.txt", "unstaged.txt"}; !slices.Equal(unstaged, want) {
		t.Errorf("unstaged = %q, want %q", unstaged, want)
	}
	if want := []string{"un tracked.txt"}; !slices.Equal(untracked, want) {
		t.Errorf("untracked = %q, want %q", untracked, want)
	}
	if _, _, _, err := parseStatus([]byte("X what\x00")); err == nil {
		t.Error("an unknown entry is an error")
	}
	if _, _, _, err := parseStatus([]byte("1 M. short\x00")); err == nil {
		t.Error("a short entry is an error")
	}
}

func TestObjectsAndResolveRefs(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	base := r.commitAll("base")
	r.git("update-ref", "refs/remotes/origin/only-remote", "HEAD")
	r.write("b.txt", "b\n")
	snap, err := Snapshot(ctx, r.root, base)
	if err != nil {
		t.Fatal(err)
	}

	objs, err := Objects(ctx, r.root, "HEAD^{commit}", "nope", "", "-x", "a b", "HEAD^{tree}", "main:a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].SHA != base || objs[0].Type != "commit" || !strings.Contains(string(objs[0].Content), "\n\nbase\n") {
		t.Errorf("HEAD = %+v", objs[0])
	}
	for i := 1; i <= 4; i++ {
		if objs[i].SHA != "" {
			t.Errorf("objs[%d] = %+v, want none", i, objs[i])
		}
	}
	if objs[5].Type != "tree" || string(objs[6].Content) != "a\n" {
		t.Errorf("tree %+v, blob %+v", objs[5], objs[6])
	}

	headTree := r.git("rev-parse", "HEAD^{tree}")
	tests := []struct {
		base, snapshot string
		want           Refs
		baseErr        bool
	}{
		{"main", snap, Refs{Head: base, HeadTree: headTree, Base: base, SnapshotBase: base,
			SnapshotTree: r.git("rev-parse", snap+"^{tree}"), SnapshotParent: r.git("rev-parse", snap+"^"),
			Snapshot: snap, SnapshotLiteral: true}, false},
		{"only-remote", "", Refs{Head: base, HeadTree: headTree, Base: base, Remote: base}, false},
		{"origin/only-remote", base, Refs{Head: base, HeadTree: headTree, Base: base, Remote: base, SnapshotTree: r.git("rev-parse", base+"^{tree}"), Snapshot: base}, false},
		{"nope", "", Refs{Head: base, HeadTree: headTree}, true},
		{"-x", "", Refs{Head: base, HeadTree: headTree}, true},
		{"main", strings.Repeat("a", 40), Refs{Head: base, HeadTree: headTree, Base: base}, false},
	}
	for _, tt := range tests {
		got, err := ResolveRefs(ctx, r.root, tt.base, tt.snapshot)
		if err != nil {
			t.Fatal(err)
		}
		if (got.BaseErr != nil) != tt.baseErr {
			t.Errorf("%s: BaseErr = %v", tt.base, got.BaseErr)
		}
		got.BaseErr = nil
		if got != tt.want {
			t.Errorf("ResolveRefs(%q, %q) = %+v, want %+v", tt.base, tt.snapshot, got, tt.want)
		}
		sha, err := ResolveBase(ctx, r.root, tt.base)
		if sha != tt.want.Base || (err != nil) != tt.baseErr {
			t.Errorf("ResolveBase(%q) = %q, %v", tt.base, sha, err)
		}
	}
}

func TestReadHeadState(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	check := func(base string, want HeadState, baseErr bool) {
		t.Helper()
		got, err := ReadHeadState(ctx, r.root, base)
		if err != nil {
			t.Fatal(err)
		}
		var be *BaseBranchError
		if baseErr != errors.As(got.BaseErr, &be) {
			t.Errorf("BaseErr = %v", got.BaseErr)
		}
		got.BaseErr = nil
		if got != want {
			t.Errorf("ReadHeadState(%q) = %+v, want %+v", base, got, want)
		}
		// The same answers as the separate questions.
		if b, err := Branch(ctx, r.root); err != nil || b != want.Branch {
			t.Errorf("Branch = %q, %v", b, err)
		}
		if h, err := Head(ctx, r.root); err != nil || h != want.Head {
			t.Errorf("Head = %q, %v", h, err)
		}
	}
	check("main", HeadState{Branch: "main"}, true) // no commits yet
	r.write("HEAD", "a file named like the revision\n")
	first := r.commitAll("first")
	check("main", HeadState{Branch: "main", Head: first, Base: first}, false)
	check("nope", HeadState{Branch: "main", Head: first}, true)
	r.git("update-ref", "refs/remotes/origin/rel", "HEAD")
	check("rel", HeadState{Branch: "main", Head: first, Base: first}, false)
	r.git("checkout", "-q", "-b", "feature")
	r.write("b.txt", "b\n")
	second := r.commitAll("second")
	check("main", HeadState{Branch: "feature", Head: second, Base: first}, false)
	r.git("checkout", "-q", "--detach")
	check("main", HeadState{Branch: "HEAD", Head: second, Base: first}, false)
}

func TestTreeSnapshotChanged(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write(".gitignore", "*.tmp\n")
	r.commitAll("base")
	r.write("b.txt", "new\n")
	s, err := NewTreeSnapshot(ctx, r.root, "logs")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := s.Tree
	changed := func(want bool, what string) {
		t.Helper()
		got, err := s.Changed(ctx)
		if err != nil || got != want {
			t.Fatalf("%s: Changed = %v, %v; want %v", what, got, err, want)
		}
	}
	changed(false, "nothing happened")
	r.write("x.tmp", "ignored\n")
	r.write("logs/run.1.log", "excluded\n")
	changed(false, "an ignored and an excluded file")
	r.write("a.txt", "A\n")
	changed(true, "a modified file")
	if err := s.Retake(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Tree == first {
		t.Fatal("Retake kept the old tree")
	}
	changed(false, "after Retake")
	r.remove("b.txt")
	changed(true, "a deleted file")
	if err := s.Retake(ctx); err != nil {
		t.Fatal(err)
	}
	r.write("c.txt", "c\n")
	changed(true, "a new file")
	if err := s.Retake(ctx); err != nil {
		t.Fatal(err)
	}
	files := r.git("ls-tree", "-r", "--name-only", s.Tree)
	if files != ".gitignore\na.txt\nc.txt" {
		t.Fatalf("tree files:\n%s", files)
	}
}
