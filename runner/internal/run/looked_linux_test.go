package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestLookedMemoAgreesWithLook holds the stop's look at its changed paths
// with the memo (oddPathsHeld, the snapshot's kept index vouching for the
// paths git found as they were) to the look at every path (oddPathsEach):
// after each of a random sequence of changes to the work tree (edits, a
// FIFO, socket, directory or link put where a file was or where one was
// deleted, an ignored file, chmod, times put back, the user's index
// changed, pauses past gitindex.RacyMargin), a snapshot is taken in the
// kept index as a run takes it and both looks name the same paths as the
// same kinds. The memo must also answer some looks (the hit count is
// logged): a memo that is never used would pass the comparison too.
func TestLookedMemoAgreesWithLook(t *testing.T) {
	testenv.Setenv(t)
	for seed := range uint64(2) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { lookedSequence(t, seed) })
	}
}

// lookedSequence is one random sequence of TestLookedMemoAgreesWithLook.
func lookedSequence(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 28))
	root := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var names []string
	for d := range 3 {
		for f := range 6 {
			names = append(names, fmt.Sprintf("d%d/f%d.txt", d, f))
		}
		names = append(names, fmt.Sprintf("d%d/x.ign", d))
	}
	write := func(n, content string) {
		p := filepath.Join(root, n)
		_ = os.RemoveAll(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "*.ign\n")
	for _, n := range names {
		write(n, n+"\n")
	}
	gitIn("init", "-q", "-b", "main")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "base")
	files := append(slices.Clone(names), "d0/never.txt", "d9/never.txt")
	changes := []struct {
		name string
		do   func(p string) error
	}{
		{"edit", func(p string) error {
			_ = os.RemoveAll(p)
			return os.WriteFile(p, []byte(fmt.Sprint(rng.Int())), 0o644)
		}},
		{"same size", func(p string) error {
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				return err
			}
			data, _ := os.ReadFile(p)
			if len(data) > 0 {
				data[0] ^= 1
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"fifo", func(p string) error { _ = os.RemoveAll(p); return syscall.Mkfifo(p, 0o644) }},
		{"socket", func(p string) error {
			_ = os.RemoveAll(p)
			l, err := net.Listen("unix", p)
			if err != nil {
				return nil // a path too long for a socket
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			return l.Close()
		}},
		{"remove", func(p string) error { return os.RemoveAll(p) }},
		{"directory", func(p string) error {
			_ = os.RemoveAll(p)
			return os.MkdirAll(filepath.Join(p, "in"), 0o755)
		}},
		{"link to a fifo", func(p string) error {
			_ = os.RemoveAll(p)
			_ = syscall.Mkfifo(p+".fifo.ign", 0o644)
			return os.Symlink(filepath.Base(p)+".fifo.ign", p)
		}},
		{"unreadable", func(p string) error { return os.Chmod(p, 0) }},
		{"readable", func(p string) error { return os.Chmod(p, 0o644) }},
		{"times back", func(p string) error {
			old := time.Now().Add(-time.Hour)
			return os.Chtimes(p, old, old)
		}},
		{"staged", func(p string) error {
			rel, _ := filepath.Rel(root, p)
			_ = exec.Command("git", "-C", root, "add", "--", rel).Run()
			return nil
		}},
		{"nothing", func(string) error { return nil }},
		{"nothing", func(string) error { return nil }},
		{"nothing", func(string) error { return nil }},
	}
	every := make([]int, len(changes))
	for i := range changes {
		every[i] = i
	}
	// odd are the changes that make what no gate can judge, and a file.
	odd := []int{0, 2, 3, 5, 6, 7}
	// fix puts a regular file back wherever there is none: a sequence
	// that keeps a FIFO never has a look that finds nothing.
	fix := func() {
		for _, n := range names {
			if fi, err := os.Lstat(filepath.Join(root, n)); err != nil || !fi.Mode().IsRegular() {
				write(n, "fixed\n")
			}
		}
	}
	hits, vouched, looks := 0, 0, 0
	look := func(what string) {
		t.Helper()
		looks++
		ts, err := git.NewTreeSnapshot(ctx, root)
		if err != nil {
			t.Fatalf("%s: snapshot: %v", what, err)
		}
		defer ts.Close()
		h, held := ts.Held()
		if held {
			if relook, ok := readLooked(h.Index+git.LookedSuffix, h.ID, lookKey(root, files)); ok {
				hits++
				vouched += len(files) - len(relook)
			}
		}
		got := oddPathsHeld(root, files, h, held)
		want := oddPathsEach(root, files)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: with the memo %q, looking at each path %q", what, got, want)
		}
	}
	change := func(round int, paths []string, kinds []int) {
		c := changes[kinds[rng.IntN(len(kinds))]]
		n := paths[rng.IntN(len(paths))]
		if err := c.do(filepath.Join(root, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("round %d, %s %s: %v", round, c.name, n, err)
		}
		look(fmt.Sprintf("round %d, after %s of %s", round, c.name, n))
	}
	// Each round changes anything, then waits past the racy margin (a
	// file changed within it is read again by git, which rewrites the
	// index), then makes changes git's index does not see: to ignored
	// files, to paths where nothing is (a FIFO git does not list there).
	for round := range 4 {
		for range 6 {
			if rng.IntN(3) == 0 {
				fix()
			}
			change(round, names, every)
		}
		fix()
		time.Sleep(gitindex.RacyMargin + 100*time.Millisecond)
		look(fmt.Sprintf("round %d, after a pause", round))
		for range 6 {
			quiet := []string{"d0/x.ign", "d1/x.ign", "d0/never.txt"}
			for _, n := range names {
				if _, err := os.Lstat(filepath.Join(root, n)); err != nil {
					quiet = append(quiet, n)
				}
			}
			change(round, quiet, odd)
		}
	}
	t.Logf("memo answered %d of %d looks, vouching for %d paths", hits, looks, vouched)
	if hits == 0 || vouched == 0 {
		t.Fatalf("the memo answered %d looks and vouched for %d paths: the comparison tested nothing of it", hits, vouched)
	}
	// The memo is taken only as it was written: another index, another
	// list of paths, damage.
	t.Cleanup(func() {
		for _, n := range names {
			_ = os.Chmod(filepath.Join(root, n), 0o644)
		}
	})
}

// TestLookedMemoTakenOnlyAsWritten: a memo is taken only for the index
// identity and look key it was written for, and a damaged one (cut short,
// another format) is no memo.
func TestLookedMemoTakenOnlyAsWritten(t *testing.T) {
	memo := filepath.Join(t.TempDir(), "index"+git.LookedSuffix)
	relook := []string{"a b", "d/é", "x"}
	writeLooked(memo, "id1", "key1", relook)
	if got, ok := readLooked(memo, "id1", "key1"); !ok || !slices.Equal(got, relook) {
		t.Fatalf("as written: %q %v, want %q", got, ok, relook)
	}
	for _, c := range []struct{ id, key string }{{"id2", "key1"}, {"id1", "key2"}, {"", ""}} {
		if _, ok := readLooked(memo, c.id, c.key); ok {
			t.Fatalf("taken for %q %q, written for id1 key1", c.id, c.key)
		}
	}
	data, _ := os.ReadFile(memo)
	for _, damaged := range [][]byte{data[:len(data)-1], data[:10], append([]byte("looked-v0"), data[9:]...), nil} {
		if err := os.WriteFile(memo, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := readLooked(memo, "id1", "key1"); ok {
			t.Fatalf("damaged memo %q taken: %q", damaged, got)
		}
	}
	writeLooked(memo, "id1", "key1", nil)
	if got, ok := readLooked(memo, "id1", "key1"); !ok || len(got) != 0 {
		t.Fatalf("a memo with nothing to look at again: %q %v", got, ok)
	}
}
