package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StagedAsBefore is a fast path of StagedApart's staged identity: after
// any change to the user's index or to what keeps the snapshot's reading
// of it (the seed note), StagedAsBefore(id) is true only when StagedApart
// identifies the index as id (a memo may miss, never lie), for id every
// identity StagedApart gave before the change and after it. With nothing
// changed it answers from the note (the fast path is taken at all).
//
// The changes: a file staged, a same-size edit staged with the index's
// times put back, a refresh that rewrites the index, an index written with
// index.skipHash (no checksum) and then changed the same way, a split
// index, the index removed and restored, and the seed note damaged,
// removed or taken from another repository.
func TestStagedAsBeforeNeverLies(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.commitAll("base")
	other := newRepo(t)
	other.write("x.txt", "x\n")
	other.commitAll("base")
	index := filepath.Join(r.root, ".git", "index")

	// seen are the identities StagedApart gave so far.
	var seen []string
	// look takes a snapshot and checks StagedAsBefore against StagedApart
	// for every identity seen; it returns StagedApart's and whether the
	// identity before (last) was taken from the note.
	look := func(step string) (id string, hit bool) {
		t.Helper()
		s, err := NewTreeSnapshot(ctx, r.root)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		defer s.Close()
		_, id, _ = s.StagedApart()
		for _, before := range append(seen, id) {
			if s.StagedAsBefore(before) && before != id {
				t.Errorf("%s: StagedAsBefore(%q) is true, StagedApart says %q", step, before, id)
			}
		}
		if len(seen) > 0 {
			hit = s.StagedAsBefore(seen[len(seen)-1])
		}
		if id != "" {
			seen = append(seen, id)
		}
		return id, hit
	}
	kept := func() string {
		t.Helper()
		k := keptIndexes(t, filepath.Join(r.root, ".git"))
		if len(k) != 1 {
			t.Fatalf("kept indexes %v", k)
		}
		return k[0]
	}
	// putBack sets the index file's times to at.
	putBack := func(at time.Time) {
		t.Helper()
		if err := os.Chtimes(index, at, at); err != nil {
			t.Fatal(err)
		}
	}
	stat := func() os.FileInfo {
		t.Helper()
		fi, err := os.Stat(index)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}

	look("first")
	for _, step := range []struct {
		name string
		do   func()
		// steady: nothing StagedApart reads changed: the note must answer.
		steady bool
	}{
		{"nothing", func() {}, true},
		{"a file staged", func() { r.write("c.txt", "c\n"); r.git("add", "c.txt") }, false},
		{"nothing again", func() {}, true},
		{"same-size edit staged, times put back", func() {
			at := stat().ModTime()
			r.write("a.txt", "A\n")
			r.git("add", "a.txt")
			putBack(at)
		}, false},
		{"refresh", func() {
			then := time.Now().Add(-time.Hour)
			_ = os.Chtimes(filepath.Join(r.root, "b.txt"), then, then)
			r.git("update-index", "--refresh")
		}, false},
		{"skipHash index", func() { r.git("-c", "index.skipHash=true", "update-index", "--force-write-index") }, false},
		{"skipHash, same-size edit staged, size and times put back", func() {
			fi := stat()
			r.write("b.txt", "B\n")
			r.git("-c", "index.skipHash=true", "add", "b.txt")
			if stat().Size() != fi.Size() {
				t.Fatal("the same-size edit changed the index's size (the step proves nothing)")
			}
			putBack(fi.ModTime())
		}, false},
		{"plain index again", func() { r.git("-c", "index.skipHash=false", "update-index", "--force-write-index") }, false},
		{"split index", func() { r.git("update-index", "--split-index") }, false},
		{"split index, a file staged", func() { r.write("d.txt", "d\n"); r.git("add", "d.txt") }, false},
		{"no split index", func() { r.git("update-index", "--no-split-index") }, false},
		{"skipHash, the last entry's same-size edit staged, size and times put back", func() {
			r.git("-c", "index.skipHash=true", "update-index", "--force-write-index")
			look("skipHash again")
			fi := stat()
			r.write("d.txt", "D\n")
			r.git("-c", "index.skipHash=true", "add", "d.txt")
			if stat().Size() != fi.Size() {
				t.Fatal("the same-size edit changed the index's size (the step proves nothing)")
			}
			putBack(fi.ModTime())
		}, false},
		{"plain index at last", func() { r.git("-c", "index.skipHash=false", "update-index", "--force-write-index") }, false},
		{"index removed", func() {
			data, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(index); err != nil {
				t.Fatal(err)
			}
			look("index removed (inside)")
			if err := os.WriteFile(index, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"seed note damaged", func() {
			if err := os.WriteFile(kept()+seedSuffix, []byte("garbage\x00\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"seed note removed", func() {
			if err := os.Remove(kept() + seedSuffix); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"seed note of another repository", func() {
			keptTree(t, other.root)
			theirs := keptIndexes(t, filepath.Join(other.root, ".git"))[0]
			data, err := os.ReadFile(theirs + seedSuffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kept()+seedSuffix, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"nothing at last", func() {}, true},
	} {
		step.do()
		if _, hit := look(step.name); step.steady && !hit {
			t.Errorf("%s: nothing changed, and StagedAsBefore missed (the fast path is never taken)", step.name)
		}
	}
}
