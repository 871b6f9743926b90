package verdicts

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestProjects lists the projects with a book: each book by the key
// written in it and only at that key's file; a copy under another name,
// a file that is no book, another work tree's books and the books skipped
// are not listed.
func TestProjects(t *testing.T) {
	common := t.TempDir()
	write := func(project, worktree string) Key {
		k := Key{CommonDir: common, Project: project, Worktree: worktree}
		if err := Update(k, func(b *Book) error { return b.RecordCheck("check:.:x", CheckVerdict{Status: StatusFail, Run: 1}) }); err != nil {
			t.Fatal(err)
		}
		return k
	}
	top := write(".", ".")
	src := write("src", ".")
	write("lib/a", ".")
	write("other", "worktrees/w1")
	data, err := os.ReadFile(src.Path())
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(filepath.Dir(filepath.Dir(src.Path())), "copied", "x.json")
	junk := filepath.Join(filepath.Dir(src.Path()), "junk.json")
	for path, content := range map[string][]byte{copied: data, junk: []byte("{")} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		worktree string
		skip     []Key
		want     []string
	}{
		{".", nil, []string{".", "lib/a", "src"}},
		{".", []Key{top}, []string{"lib/a", "src"}},
		{"worktrees/w1", nil, []string{"other"}},
		{"worktrees/w2", nil, nil},
	} {
		if got := Projects(common, c.worktree, c.skip...); !slices.Equal(got, c.want) {
			t.Errorf("Projects(%q, skip %d) = %q, want %q", c.worktree, len(c.skip), got, c.want)
		}
	}
	if got := Projects(filepath.Join(common, "none"), "."); got != nil {
		t.Errorf("Projects of a repository without books = %q", got)
	}
}
