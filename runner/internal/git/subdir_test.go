package git

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestProjectBelowTopLevel: a project root below the git top level
// (docs/design.md, The stop hook's decision order) sees only its own changes, named relative to it, in every mode, and
// its review diffs take and print project-relative paths.
func TestProjectBelowTopLevel(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("src/top.txt", "top\n")
	r.write("proj/src/a.txt", "a\n")
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	r.write("proj/src/a.txt", "a2\n")
	r.write("src/top.txt", "top2\n")
	c := r.commitAll("work")
	r.write("proj/src/b.txt", "b\n")        // untracked
	r.write("proj/logs/x.log", "log\n")     // the log directory
	r.write("src/outside.txt", "outside\n") // untracked, outside the project
	r.write("proj/src/staged.txt", "s\n")
	r.git("add", "proj/src/staged.txt")
	root := filepath.Join(r.root, "proj")

	if p, err := showPrefix(ctx, root); err != nil || p != "proj/" {
		t.Fatalf("Prefix = %q, %v; want proj/", p, err)
	}
	if p, err := showPrefix(ctx, r.root); err != nil || p != "" {
		t.Fatalf("Prefix(top) = %q, %v; want empty", p, err)
	}
	t.Setenv("GIT_WORK_TREE", r.root)
	t.Setenv("GIT_DIR", filepath.Join(r.root, ".git"))
	if p, err := showPrefix(ctx, root); err != nil || p != "proj/" {
		t.Fatalf("Prefix via git = %q, %v; want proj/", p, err)
	}
	testenv.Setenv(t)

	check := func(name string, spec gate.DiffSpec, want ...string) {
		t.Helper()
		ch, err := ChangedFiles(ctx, root, spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(sorted(ch.Files), sorted(want)) {
			t.Errorf("%s: files %q, want %q", name, ch.Files, want)
		}
	}
	check("local", gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, "src/a.txt", "src/b.txt", "src/staged.txt", "logs/x.log")
	check("uncommitted", gate.DiffSpec{Mode: gate.DiffUncommitted}, "src/b.txt", "src/staged.txt", "logs/x.log")
	check("commit", gate.DiffSpec{Mode: gate.DiffCommit, Commit: c}, "src/a.txt")
	check("ci", gate.DiffSpec{Mode: gate.DiffCI, BaseBranch: "main"}, "src/a.txt")

	snap, err := SnapshotTree(ctx, root, "logs")
	if err != nil {
		t.Fatal(err)
	}
	r.write("proj/src/b.txt", "b2\n")
	r.write("src/outside.txt", "outside2\n")
	r.write("proj/logs/y.log", "log\n")
	tree, err := SnapshotTree(ctx, root, "logs")
	if err != nil {
		t.Fatal(err)
	}
	check("fix base", gate.DiffSpec{Mode: gate.DiffFixBase, FixBase: snap, WorkTree: tree}, "src/b.txt")

	d, err := diffText(ctx, root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, dirScope("src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"b/src/a.txt", "+a2", "b/src/b.txt"} {
		if !strings.Contains(d, s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	for _, s := range []string{"proj/", "top2", "outside"} {
		if strings.Contains(d, s) {
			t.Errorf("diff has %q:\n%s", s, d)
		}
	}
	st, err := DiffStats(ctx, root, gate.DiffSpec{Mode: gate.DiffCommit, Commit: c})
	if err != nil || st.Changed() != 1 {
		t.Errorf("DiffStats = %+v, %v; want 1 file", st, err)
	}
}
