package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"pgregory.net/rapid"
)

// Refs.NothingSince answers for git only when git would find nothing: over
// random work trees (files written and removed, commits, repositories
// inside, with and without commits, edited inside) and random earlier
// snapshots, whenever it says nothing changed since a snapshot,
// ChangedFilesIn from it lists nothing; and Holds names only objects that
// exist. It must also say so for a snapshot of the very tree (the hit
// count).
func TestNothingSinceAgreesWithGit(t *testing.T) {
	testenv.Setenv(t)
	ctx := context.Background()
	hits := 0
	rapid.Check(t, func(rt *rapid.T) {
		root := t.TempDir()
		git := func(dir string, args ...string) {
			_ = exec.Command("git", append([]string{"-C", dir}, args...)...).Run()
		}
		git(root, "init", "-q", "-b", "main")
		git(root, "commit", "-q", "--allow-empty", "-m", "base")
		var snaps []string
		for range rapid.IntRange(1, 8).Draw(rt, "steps") {
			dir := rapid.SampledFrom([]string{".", "a", "inner", "inner/x"}).Draw(rt, "dir")
			abs := filepath.Join(root, dir)
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0, 1:
				_ = os.MkdirAll(abs, 0o755)
				_ = os.WriteFile(filepath.Join(abs, "f.txt"), []byte(rapid.SampledFrom([]string{"1", "2"}).Draw(rt, "body")), 0o644)
			case 2:
				_ = os.Remove(filepath.Join(abs, "f.txt"))
			case 3:
				git(root, "add", "-A")
				git(root, "commit", "-q", "-m", "step")
			case 4:
				_ = os.MkdirAll(filepath.Join(root, "inner"), 0o755)
				git(filepath.Join(root, "inner"), "init", "-q")
				if rapid.Bool().Draw(rt, "commit inside") {
					git(filepath.Join(root, "inner"), "add", "-A")
					git(filepath.Join(root, "inner"), "commit", "-q", "--allow-empty", "-m", "inside")
				}
			}
			snap, err := NewTreeSnapshot(ctx, root)
			if err != nil {
				rt.Fatal(err)
			}
			head, _ := Head(ctx, root)
			if rapid.Bool().Draw(rt, "keep a snapshot") || len(snaps) == 0 {
				c, err := CommitTreeOn(ctx, root, snap.Tree, head, "", head)
				if err != nil {
					rt.Fatal(err)
				}
				snaps = append(snaps, c)
			}
			from := rapid.SampledFrom(append(snaps, head)).Draw(rt, "from")
			refs, err := ResolveRefs(ctx, root, "main", from)
			if err != nil {
				rt.Fatal(err)
			}
			if refs.Holds(from) {
				if ok, err := ObjectExists(ctx, root, from); err != nil || !ok {
					rt.Fatalf("Holds(%s) but it does not exist: %v", from, err)
				}
			}
			if refs.NothingSince(from, snap.Tree, snap) {
				hits++
				spec := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: "main", FixBase: from, WorkTree: snap.Tree, ReadTree: snap.KeyTree}
				ch, err := ChangedFilesIn(ctx, root, spec, snap)
				if err != nil || len(ch.Files) != 0 {
					rt.Fatalf("NothingSince(%s) but git lists %q (%v)", from, ch.Files, err)
				}
			}
			snap.Close()
		}
	})
	t.Logf("NothingSince answered %d times", hits)
	if hits == 0 {
		t.Error("NothingSince never answered")
	}
}
