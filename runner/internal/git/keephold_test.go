package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
)

// TestConcurrentSnapshotsAgree: whatever snapshots of one project run at
// once (in this process or others, each in its own open file, as flock
// tells them apart), each gives the tree a fresh temporary index gives.
// The kept index is used by one of them at a time; the others take
// temporary ones. Without the hold, two `git add`s, a write-tree and a
// stat clearing interleave in one index file and a snapshot can write
// the empty tree. The table grows the work tree between rounds (new,
// edited, same-size edited, deleted files), and each round starts 2 to 6
// snapshots at once, 8 times.
func TestConcurrentSnapshotsAgree(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write(".gitignore", "logs/\n")
	r.write("a.txt", "a\n")
	r.commitAll("base")
	edits := []func(i int){
		func(i int) { r.write(fmt.Sprintf("new%d.txt", i), "n\n") },
		func(i int) { r.write("a.txt", fmt.Sprintf("a%d\n", i%10)) },
		func(i int) { r.write(fmt.Sprintf("d%d/e.txt", i), "e\n") },
		func(i int) { r.remove(fmt.Sprintf("new%d.txt", i-3)) },
	}
	for i := range 32 {
		edits[i%len(edits)](i)
		fresh, err := SnapshotTree(ctx, r.root, "logs")
		if err != nil {
			t.Fatal(err)
		}
		n := 2 + i%5
		trees := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for j := range n {
			wg.Go(func() {
				s, err := NewTreeSnapshot(ctx, r.root, "logs")
				if err != nil {
					errs[j] = err
					return
				}
				defer s.Close()
				trees[j] = s.Tree
			})
		}
		wg.Wait()
		for j := range n {
			if errs[j] != nil {
				t.Fatalf("round %d, snapshot %d: %v", i, j, errs[j])
			}
			if trees[j] != fresh {
				t.Fatalf("round %d: snapshot %d of %d taken at once wrote tree %s, a fresh index %s\n%s", i, j, n, trees[j], fresh,
					r.git("ls-tree", "-r", trees[j]))
			}
		}
	}
}

// TestKeptIndexHeldByOne: while a snapshot holds the kept index, another
// takes a temporary one; once it is closed, the next takes the kept one.
func TestKeptIndexHeldByOne(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	first, err := NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	if first.tmp != "" {
		t.Fatal("the first snapshot did not take the kept index")
	}
	second, err := NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	if second.tmp == "" || second.kept != "" {
		t.Fatal("a second snapshot took the kept index another holds")
	}
	if second.Tree != first.Tree {
		t.Fatalf("the two snapshots differ: %s, %s", first.Tree, second.Tree)
	}
	second.Close()
	first.Close()
	if tree := keptTree(t, r.root); tree != first.Tree {
		t.Fatalf("after both closed: %s, want %s", tree, first.Tree)
	}
}

// TestKilledGitLeavesNoLock: git's lock of the kept index that a git of
// the snapshot left (killed by a deadline or an ending signal before it
// removed it) goes with the snapshot's hold, so the next snapshot uses
// the kept index again; a lock that was there before the snapshot (a git
// that another hold's owner runs) is no snapshot's to remove, and the
// snapshot takes a temporary index beside it.
func TestKilledGitLeavesNoLock(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write(".gitignore", "logs/\n")
	r.write("a.txt", "a\n")
	r.commitAll("base")
	take := func() *TreeSnapshot {
		s, err := NewTreeSnapshot(ctx, r.root, "logs")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := take()
	kept := s.kept
	if kept == "" || s.index != kept {
		t.Fatalf("the first snapshot took no kept index (index %q)", s.index)
	}
	// What a git of this snapshot's, killed mid-write, leaves.
	if err := os.WriteFile(kept+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Lstat(kept + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the lock a git of the snapshot left is still there after Close: %v", err)
	}
	s = take()
	if s.index != kept {
		t.Errorf("the next snapshot took index %q, not the kept %q", s.index, kept)
	}
	s.Close()

	// A lock that was there first is another git's: left alone.
	if err := os.WriteFile(kept+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s = take()
	if s.index == kept {
		t.Errorf("a snapshot used the kept index while a git holds its lock")
	}
	s.Close()
	if _, err := os.Lstat(kept + ".lock"); err != nil {
		t.Errorf("the lock another git holds was removed: %v", err)
	}
}
