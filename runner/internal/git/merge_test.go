package git

import (
	"context"
	"fmt"

	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// TestMergeReadsOnlyWhatTheUserIndexChanged: when the user's index is
// rewritten (a refresh by `git status`, a file staged or unstaged), the
// kept index merged again from it clears the cached stat, so that the
// next snapshot reads the file again, only of the entries the user's index
// changed since the last merge (and of racily clean ones): the files the
// user modified and did not stage keep theirs. And the merged index gives
// the tree a fresh snapshot gives.
func TestMergeReadsOnlyWhatTheUserIndexChanged(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	for i := range 12 {
		r.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("base %d\n", i))
	}
	r.commitAll("base")
	for i := range 8 {
		r.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("changed %d\n", i))
	}
	ops := []struct {
		name string
		do   func()
	}{
		{"a file put back as committed, then git status", func() {
			r.write("f0.txt", "base 0\n")
			r.git("status", "--porcelain")
		}},
		{"a file staged", func() { r.git("add", "f1.txt") }},
		{"a file unstaged", func() { r.git("reset", "-q", "--", "f1.txt") }},
		{"every stat refreshed", func() { r.git("update-index", "-q", "--really-refresh") }},
	}
	keptTree(t, r.root)
	for _, op := range ops {
		// The files written last are racily clean in the kept index:
		// past the margin, a snapshot reads them again.
		time.Sleep(gitindex.RacyMargin + 100*time.Millisecond)
		keptTree(t, r.root)
		kept := keptIndexes(t, filepath.Join(r.root, ".git"))[0]
		was, err := gitindex.Read(kept + userSuffix)
		if err != nil {
			t.Fatal(err)
		}
		op.do()
		user, err := gitindex.Read(filepath.Join(r.root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "index")
		if _, _, _, _, err := mergeSeed(filepath.Join(r.root, ".git", "index"), kept, kept+userSuffix, out, r.root); err != nil {
			t.Fatal(err)
		}
		merged, err := gitindex.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		changed := userChanged(was, user)
		for _, e := range merged.Entries {
			if e.Stat == [9]uint32{} && !slices.Contains(changed, e.Path) {
				t.Errorf("after %s: %s is read again, although the user's index did not change it (changed: %q)", op.name, e.Path, changed)
			}
		}
		got := keptTree(t, r.root)
		fresh, err := SnapshotTree(ctx, r.root)
		if err != nil {
			t.Fatal(err)
		}
		if got != fresh {
			t.Fatalf("after %s: kept index tree %s, fresh %s", op.name, got, fresh)
		}
	}
}

// userChanged are the paths whose entries differ between two user indexes.
func userChanged(was, now *gitindex.File) []string {
	old := map[string]gitindex.Entry{}
	for _, e := range was.Entries {
		old[e.Path] = e
	}
	var changed []string
	for _, e := range now.Entries {
		if o, ok := old[e.Path]; !ok || !sameUserEntry(&o, &e) {
			changed = append(changed, e.Path)
		}
	}
	return changed
}

// sameUserEntry compares two entries field by field.
func sameUserEntry(a, b *gitindex.Entry) bool {
	return a.Stat == b.Stat && a.Mode == b.Mode && string(a.OID) == string(b.OID) && a.Flags == b.Flags && a.XFlags == b.XFlags
}
