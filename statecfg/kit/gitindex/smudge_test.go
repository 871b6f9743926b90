package gitindex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Smudge clears the cached stat of exactly the entries changed since the
// mark, in every index format git writes (versions 2, 3 and 4, SHA-1 and
// SHA-256, with extensions, with index.skipHash where git has it), keeps
// every other byte, and leaves an index git reads: the same entries, the
// cleared ones reported modified until git reads them again.
func TestSmudgeClearsOnlyRecentStats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		init    []string
		version string
		config  []string
	}{
		{"version 2", nil, "2", nil},
		{"version 3 (extended flags)", nil, "3", nil},
		{"version 4", nil, "4", nil},
		{"SHA-256, version 4", []string{"--object-format=sha256"}, "4", nil},
		{"untracked cache, skipHash where git has it", nil, "2", []string{"index.skipHash=true", "core.untrackedCache=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, tc.init...)
			for _, kv := range tc.config {
				k, v, _ := strings.Cut(kv, "=")
				r.git("config", k, v)
			}
			old := time.Now().Add(-time.Hour)
			for _, f := range []string{"a.txt", "d/e/f.txt", "d/h.txt", "new.txt"} {
				r.write(f, f+"\n")
			}
			r.commitAll("base")
			r.git("update-index", "--skip-worktree", "a.txt")
			r.git("update-index", "--index-version", tc.version)
			r.git("status", "--porcelain") // the cache tree and untracked cache written
			p := filepath.Join(r.root, ".git", "index")
			before, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			// The entries' times are those of the files: all recent. A mark
			// before them clears all; after them, none.
			if n, err := Smudge(p, time.Now().Add(time.Hour)); err != nil || n != 0 {
				t.Fatalf("a mark after every change cleared %d (%v)", n, err)
			}
			if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
				t.Fatal("nothing to clear, yet the index was rewritten")
			}
			n, err := Smudge(p, old)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(idx.Entries) {
				t.Fatalf("cleared %d of %d recent entries", n, len(idx.Entries))
			}
			got, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got.Extensions, " ") != strings.Join(idx.Extensions, " ") || got.Version != idx.Version {
				t.Fatalf("extensions %v version %d, were %v %d", got.Extensions, got.Version, idx.Extensions, idx.Version)
			}
			for i, e := range got.Entries {
				want := idx.Entries[i]
				want.Stat = [9]uint32{}
				if e.Path != want.Path || e.Mode != want.Mode || !bytes.Equal(e.OID, want.OID) || e.Flags != want.Flags || e.XFlags != want.XFlags || e.Stat != want.Stat {
					t.Fatalf("entry %d: %+v, want %+v", i, e, want)
				}
			}
			// git reads it, finds every file's stat (but the skip-worktree
			// one's) matching no file, and no content changed.
			if out := r.git("diff-files", "--name-only"); out != "d/e/f.txt\nd/h.txt\nnew.txt" {
				t.Fatalf("git diff-files: %q", out)
			}
			if out := r.git("status", "--porcelain"); out != "" {
				t.Fatalf("git status: %q", out)
			}
			if _, err := os.Stat(p + ".lock"); !os.IsNotExist(err) {
				t.Fatalf("the lock file is left: %v", err)
			}
		})
	}
}

// An entry's cached stat changed since a mark when its change time or
// its modification time is no earlier than the mark.
func TestChangedSince(t *testing.T) {
	mark := time.Unix(1000, 500)
	for _, tc := range []struct {
		ctime, mtime [2]uint32
		want         bool
	}{
		{[2]uint32{999, 0}, [2]uint32{999, 0}, false},
		{[2]uint32{1000, 499}, [2]uint32{10, 0}, false},
		{[2]uint32{1000, 500}, [2]uint32{10, 0}, true},
		{[2]uint32{10, 0}, [2]uint32{1000, 500}, true},
		{[2]uint32{1001, 0}, [2]uint32{10, 0}, true},
		{[2]uint32{0, 0}, [2]uint32{0, 0}, false},
	} {
		e := Entry{Stat: [9]uint32{tc.ctime[0], tc.ctime[1], tc.mtime[0], tc.mtime[1]}}
		if got := e.ChangedSince(mark); got != tc.want {
			t.Errorf("ctime %v mtime %v: %t, want %t", tc.ctime, tc.mtime, got, tc.want)
		}
	}
}
