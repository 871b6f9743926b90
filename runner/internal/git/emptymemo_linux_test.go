package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"pgregory.net/rapid"
)

// The memo of an empty-directory walk stands for the walk only while it
// would find the same: over random work trees (directories made, filled
// with a file or an ignored one, emptied, removed, renamed, committed,
// entries named .git made, in the log directory too), the Key of a
// snapshot taken on the kept index, which may skip the walk, is the Key
// of one taken on a fresh index, which never does. With nothing changed
// since the last snapshot, the walk is skipped (the hit count).
func TestEmptyWalkMemoAgreesWithTheWalk(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	dirs := []string{"a", "a/b", "a/b/c", "d", "build/x", "logs/e"}
	asked, hits := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		r := newRepo(t)
		r.write(".gitignore", "*.log\nbuild/\n")
		r.write("src/a.txt", "a\n")
		r.commitAll("base")
		key := func(steady bool) string {
			s, err := newTreeSnapshot(ctx, r.root, steady, []string{"logs"})
			if err != nil {
				rt.Fatalf("snapshot: %v", err)
			}
			defer s.Close()
			return s.Key()
		}
		for range rapid.IntRange(1, 8).Draw(rt, "steps") {
			d := rapid.SampledFrom(dirs).Draw(rt, "dir")
			abs := filepath.Join(r.root, filepath.FromSlash(d))
			// Mostly directories made and filled: a directory made empty
			// in a populated one moves only its parent's times.
			switch op := rapid.SampledFrom([]int{0, 0, 0, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8}).Draw(rt, "op"); op {
			case 0:
				_ = os.MkdirAll(abs, 0o755)
			case 1:
				_ = os.MkdirAll(abs, 0o755)
				_ = os.WriteFile(filepath.Join(abs, "f.txt"), []byte("x\n"), 0o644)
			case 2:
				_ = os.MkdirAll(abs, 0o755)
				_ = os.WriteFile(filepath.Join(abs, "x.log"), []byte("x\n"), 0o644)
			case 3:
				_ = os.Remove(filepath.Join(abs, rapid.SampledFrom([]string{"f.txt", "x.log"}).Draw(rt, "file")))
			case 4:
				_ = os.RemoveAll(abs)
			case 5:
				to := filepath.Join(r.root, filepath.FromSlash(rapid.SampledFrom(dirs).Draw(rt, "to")))
				_ = os.MkdirAll(filepath.Dir(to), 0o755)
				_ = os.Rename(abs, to)
			case 6:
				r.git("add", "-A")
				r.git("commit", "-q", "--allow-empty", "-m", "step")
			case 7:
				_ = os.MkdirAll(abs, 0o755)
				_ = os.WriteFile(filepath.Join(abs, ".git"), []byte("gitdir: nowhere\n"), 0o644)
			case 8: // nothing
			}
			time.Sleep(3 * filestat.Margin)
			steady := key(true)
			if fresh := key(false); steady != fresh {
				rt.Fatalf("after %s: kept index key %q, fresh index key %q", d, steady, fresh)
			}
			time.Sleep(3 * filestat.Margin)
			was := walksSkipped.Load()
			if again := key(true); again != steady {
				rt.Fatalf("nothing changed, yet the key moved: %q -> %q", steady, again)
			}
			asked++
			if walksSkipped.Load() > was {
				hits++
			}
		}
	})
	t.Logf("walks skipped with nothing changed: %d of %d", hits, asked)
	if hits == 0 {
		t.Errorf("the memo never stood for a walk")
	}
}
