package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLocate pins Location in a plain repository with no commit yet, in a
// subdirectory project, on a detached HEAD and in a linked worktree (which
// shares the common directory but has its own branch).
func TestLocate(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	loc, err := Locate(ctx, r.root)
	common, _ := filepath.EvalSymlinks(filepath.Join(r.root, ".git"))
	got, _ := filepath.EvalSymlinks(loc.CommonDir)
	if err != nil || got != common || loc.Prefix != "" || loc.Branch != "main" {
		t.Fatalf("fresh repo: %+v %v (common %s)", loc, err, common)
	}
	r.write("sub/x.txt", "x")
	first := r.commitAll("one")
	if loc, err := Locate(ctx, filepath.Join(r.root, "sub")); err != nil || loc.Prefix != "sub/" || loc.Branch != "main" {
		t.Errorf("subdirectory: %+v %v", loc, err)
	}
	r.git("checkout", "-q", "-b", "feature/x")
	if loc, _ := Locate(ctx, r.root); loc.Branch != "feature/x" {
		t.Errorf("branch with a slash: %+v", loc)
	}
	r.git("checkout", "-q", "--detach", first)
	if loc, _ := Locate(ctx, r.root); loc.Branch != "HEAD" {
		t.Errorf("detached: %+v", loc)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "other", wt)
	loc, err = Locate(ctx, wt)
	got, _ = filepath.EvalSymlinks(loc.CommonDir)
	if err != nil || got != common || loc.Branch != "other" {
		t.Errorf("worktree: %+v %v", loc, err)
	}
	if _, err := Locate(ctx, t.TempDir()); err == nil {
		t.Errorf("no repository: no error")
	}
	_ = os.RemoveAll(wt)
}
