package git

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

func TestBaseCommit(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	root := r.commitAll("root")
	r.write("a.txt", "b\n")
	base := r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	r.write("b.txt", "b\n")
	first := r.commitAll("feature 1")
	r.git("checkout", "-q", "main")
	r.write("c.txt", "c\n")
	r.commitAll("main moves on")
	r.git("checkout", "-q", "feature")
	r.write("d.txt", "d\n")
	head := r.commitAll("feature 2")
	r.git("checkout", "-q", "--orphan", "unrelated")
	r.git("rm", "-rq", "--cached", ".")
	r.commitAll("unrelated root")
	r.git("checkout", "-q", "-f", "feature")

	for _, tc := range []struct {
		name string
		spec gate.DiffSpec
		want string
		err  string
	}{
		{"local: the merge base", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, base, ""},
		{"uncommitted: HEAD", gate.DiffSpec{Mode: gate.DiffUncommitted, BaseBranch: "main"}, head, ""},
		{"commit: its parent", gate.DiffSpec{Mode: gate.DiffCommit, Commit: head}, first, ""},
		{"commit: a root has none", gate.DiffSpec{Mode: gate.DiffCommit, Commit: root}, "", "has no parent"},
		{"CI: merge base with the head", gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "main", Head: first}, base, ""},
		{"no merge base", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "unrelated"}, "", "no common commit"},
		{"the previous run's changes: where they start", gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: "main", FixBase: first}, first, ""},
		{"no such base", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "nope"}, "", `base branch "nope" does not exist`},
		{"changes since before the first commit", gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: "main", FixBase: EmptyTree}, "", "before the repository's first commit"},
		{"a start point that is gone", gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: "main", FixBase: strings.Repeat("e", 40)}, "", "names no commit"},
	} {
		got, err := BaseCommit(ctx, r.root, tc.spec)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: BaseCommit = %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestParseWorktrees(t *testing.T) {
	out := "worktree /repo\nHEAD abc\nbranch refs/heads/main\n\n" +
		"worktree /tmp/x/tree\nHEAD def\ndetached\nlocked agent-gauntlet baseline: pid 12 on host\n\n" +
		"worktree \"/odd\\npath\"\nHEAD 123\ndetached\nlocked\n\n" +
		"worktree /other\nHEAD 456\nbranch refs/heads/x\nprunable gitdir file points to non-existent location\n"
	want := []Worktree{{Path: "/repo"}, {Path: "/tmp/x/tree", Locked: true, LockReason: "agent-gauntlet baseline: pid 12 on host"}, {Path: "/other"}}
	if got := parseWorktrees(out); !reflect.DeepEqual(got, want) {
		t.Errorf("parseWorktrees =\n%+v\nwant\n%+v", got, want)
	}
}

// A worktree comes and goes; the user's work tree, index and worktree list
// are as they were.
func TestAddRemoveWorktree(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	first := r.commitAll("first")
	r.write("a.txt", "changed, staged\n")
	r.git("add", "a.txt")
	r.write("u.txt", "untracked\n")
	status := r.git("status", "--porcelain")
	dir := filepath.Join(t.TempDir(), "tree")
	if err := AddWorktree(ctx, r.root, dir, first, "agent-gauntlet baseline: test"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("the worktree's a.txt: %q %v", b, err)
	}
	list, err := Worktrees(ctx, r.root)
	if err != nil || len(list) != 2 || !list[1].Locked || list[1].LockReason != "agent-gauntlet baseline: test" {
		t.Errorf("worktrees %+v %v", list, err)
	}
	if err := RemoveWorktree(ctx, r.root, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if list, _ := Worktrees(ctx, r.root); len(list) != 1 {
		t.Errorf("worktrees after removal: %+v", list)
	}
	if got := r.git("status", "--porcelain"); got != status {
		t.Errorf("status changed:\n%s\nwant\n%s", got, status)
	}
	if err := AddWorktree(ctx, r.root, dir, "-bad", "x"); err == nil {
		t.Error("a commit starting with - was accepted")
	}
}
