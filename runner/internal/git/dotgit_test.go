//go:build unix

package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// dotGitKinds are entries named .git that are no repository git reads:
// git never lists a path component named .git, nor treats its directory
// as a repository of its own, so it skips them without a word.
var dotGitKinds = []struct {
	name string
	make func(t *testing.T, p string)
}{
	{"file with junk", func(t *testing.T, p string) { writeFile(t, p, "token=BAD\n") }},
	{"file with a gitdir to nowhere", func(t *testing.T, p string) { writeFile(t, p, "gitdir: /nowhere/at/all\n") }},
	{"directory with files and no HEAD", func(t *testing.T, p string) { writeFile(t, filepath.Join(p, "x"), "token=BAD\n") }},
	{"empty directory", func(t *testing.T, p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}},
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Invariant: a path of the work tree that git does not list, an entry
// named .git that is no repository git reads, is never silently outside
// the snapshot: in every directory git lists a file of, at every depth,
// and whether the directory's file is tracked or new, it is left out and
// named (LeftOut), makes the key uncertain (no cached result stands for
// the work tree) and is one of the changed files (never "no changes").
func TestSnapshotNamesDotGitEntries(t *testing.T) {
	ctx := context.Background()
	for _, e := range dotGitKinds {
		for _, dir := range []string{"src/", "src/a/", "src/a/b/"} {
			for _, tracked := range []bool{true, false} {
				name := dir + ".git"
				t.Run(fmt.Sprintf("%s/%s/tracked=%v", e.name, name, tracked), func(t *testing.T) {
					r := newRepo(t)
					r.write("src/keep.txt", "one\n")
					if tracked {
						r.write(dir+"f.txt", "one\n")
					}
					r.commitAll("base")
					if !tracked {
						r.write(dir+"f.txt", "one\n")
					}
					pass, err := NewTreeSnapshot(ctx, r.root)
					if err != nil {
						t.Fatalf("snapshot: %v", err)
					}
					before := pass.Key()
					pass.Close()
					e.make(t, filepath.Join(r.root, filepath.FromSlash(name)))
					s, err := NewTreeSnapshot(ctx, r.root)
					if err != nil {
						t.Fatalf("snapshot: %v", err)
					}
					defer s.Close()
					if !slices.Contains(s.LeftOut, name) {
						t.Errorf("LeftOut = %q, want it to hold %q", s.LeftOut, name)
					}
					if k := s.Key(); k != "" || s.Uncertain == "" {
						t.Errorf("Key = %q (before %q), Uncertain = %q: a cached result could stand for %q", k, before, s.Uncertain, name)
					}
					for _, mode := range []gate.DiffMode{gate.DiffLocal, gate.DiffUncommitted} {
						ch, err := ChangedFilesIn(ctx, r.root, gate.DiffSpec{Mode: mode, BaseBranch: "main"}, s)
						if err != nil {
							t.Fatalf("changes (%s): %v", mode, err)
						}
						if !slices.Contains(ch.Files, name) {
							t.Errorf("changes (%s) = %q, want them to hold %q", mode, ch.Files, name)
						}
					}
				})
			}
		}
	}
}

// The other spellings of .git, as directories git lists the files of
// (core.ignorecase off) and then refuses in an index, are left out and
// named the same way (a file of that name: TestSnapshotNamesPathsGitRefuses).
func TestSnapshotNamesDotGitSpellingDirectories(t *testing.T) {
	ctx := context.Background()
	for _, spelling := range []string{".GIT", ".Git"} {
		for _, dir := range []string{"", "src/", "src/a/", "src/a/b/"} {
			name := dir + spelling + "/x"
			t.Run(name, func(t *testing.T) {
				r := newRepo(t)
				r.write("src/keep.txt", "one\n")
				r.commitAll("base")
				r.write(name, "token=BAD\n")
				if r.git("status", "--porcelain", "-uall") == "" {
					t.Skipf("git does not list %q here", name)
				}
				s, err := NewTreeSnapshot(ctx, r.root)
				if err != nil {
					t.Fatalf("snapshot: %v", err)
				}
				defer s.Close()
				if !slices.Contains(s.LeftOut, name) {
					t.Errorf("LeftOut = %q, want it to hold %q", s.LeftOut, name)
				}
				if s.Key() != "" || s.Uncertain == "" {
					t.Errorf("Key = %q, Uncertain = %q: a cached result could stand for %q", s.Key(), s.Uncertain, name)
				}
				ch, err := ChangedFilesIn(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, s)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(ch.Files, name) {
					t.Errorf("changes = %q, want them to hold %q", ch.Files, name)
				}
			})
		}
	}
}

// BenchmarkDotGitEntries: what looking for entries named .git adds to a
// stop on the 10,000-file layout of cli/internal/benchmarks (400
// directories holding entries, none with a .git).
func BenchmarkDotGitEntries(b *testing.B) {
	top := b.TempDir()
	seen := map[string]bool{}
	var dirs []string
	for i := range 200 {
		p := fmt.Sprintf("pkg%d/sub/f.go", i)
		dirs = appendDirs(dirs, seen, p)
		if err := os.MkdirAll(filepath.Join(top, filepath.Dir(p)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if found := dotGitEntries(top, dirs); len(found) > 0 {
			b.Fatalf("found %q", found)
		}
	}
}

// Invariant: an entry named .git that is no repository git reads is left
// out and named whatever its directory holds: in a directory no path git
// lists is under (it holds only that entry, or only directories down to
// it), at every depth, it is one of LeftOut, the key is uncertain and it
// is a change. An ignored directory hides it as git hides everything else.
func TestSnapshotNamesDotGitEntriesInUnlistedDirectories(t *testing.T) {
	ctx := context.Background()
	for _, e := range dotGitKinds {
		for _, dir := range []string{"x/", "src/x/", "src/x/y/", "src/x/y/z/"} {
			name := dir + ".git"
			t.Run(e.name+"/"+name, func(t *testing.T) {
				r := newRepo(t)
				r.write("src/keep.txt", "one\n")
				r.write(".gitignore", "hidden/\n")
				r.commitAll("base")
				e.make(t, filepath.Join(r.root, filepath.FromSlash(name)))
				e.make(t, filepath.Join(r.root, "src", "hidden", filepath.FromSlash(name)))
				s, err := NewTreeSnapshot(ctx, r.root)
				if err != nil {
					t.Fatalf("snapshot: %v", err)
				}
				defer s.Close()
				if !slices.Contains(s.LeftOut, name) {
					t.Errorf("LeftOut = %q, want it to hold %q", s.LeftOut, name)
				}
				if slices.Contains(s.LeftOut, "src/hidden/"+name) {
					t.Errorf("LeftOut = %q, holds an entry in an ignored directory", s.LeftOut)
				}
				if s.Key() != "" || s.Uncertain == "" {
					t.Errorf("Key = %q, Uncertain = %q: a cached result could stand for %q", s.Key(), s.Uncertain, name)
				}
				ch, err := ChangedFilesIn(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, s)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(ch.Files, name) {
					t.Errorf("changes = %q, want them to hold %q", ch.Files, name)
				}
			})
		}
	}
}
