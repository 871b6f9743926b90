package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindRoot(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		start string // relative to the temporary directory
		want  string // relative root, or "" for not found
	}{
		{"at start", map[string]string{".git/": "", ".gauntlet/config.yml": ""}, ".", "."},
		{"in a parent", map[string]string{".git/": "", ".gauntlet/config.yml": "", "a/b/c/": ""}, "a/b/c", "."},
		{"nearest wins", map[string]string{".git/": "", ".gauntlet/config.yml": "", "sub/.gauntlet/config.yml": "", "sub/x/": ""}, "sub/x", "sub"},
		{"none in the repository", map[string]string{".git/": "", "a/": ""}, "a", ""},
		{"not above the git top level", map[string]string{".gauntlet/config.yml": "", "repo/.git/": "", "repo/src/": ""}, "repo/src", ""},
		{"git file (worktree) is a top level", map[string]string{".gauntlet/config.yml": "", "wt/.git": "gitdir: ../x", "wt/src/": ""}, "wt/src", ""},
		{"config at the git top level", map[string]string{"repo/.git/": "", "repo/.gauntlet/config.yml": "", "repo/src/": ""}, "repo/src", "repo"},
		{"a .gauntlet without config.yml is skipped", map[string]string{".git/": "", ".gauntlet/config.yml": "", "sub/.gauntlet/checks/": ""}, "sub", "."},
		{"config.yml that is a directory marks the root (Load reports it)", map[string]string{".git/": "", "sub/.gauntlet/config.yml/": ""}, "sub", "sub"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, tc.files)
			got, ok := FindRoot(filepath.Join(dir, tc.start))
			if tc.want == "" {
				if ok {
					t.Errorf("FindRoot = %q, true; want not found", got)
				}
				return
			}
			want := filepath.Join(dir, tc.want)
			if !ok || got != want {
				t.Errorf("FindRoot = %q, %v; want %q, true", got, ok, want)
			}
		})
	}
}

func TestFindRootRelativeStart(t *testing.T) {
	dir := writeTree(t, map[string]string{".git/": "", ".gauntlet/config.yml": "", "a/": ""})
	t.Chdir(filepath.Join(dir, "a"))
	if got, ok := FindRoot("."); !ok || got != dir {
		t.Errorf("FindRoot(.) = %q, %v; want %q", got, ok, dir)
	}
}

// BenchmarkFindRoot measures the stop hook's root lookup from a deep
// directory.
func BenchmarkFindRoot(b *testing.B) {
	dir := b.TempDir()
	deep := filepath.Join(dir, "a", "b", "c", "d", "e")
	for _, p := range []string{deep, filepath.Join(dir, ".git"), filepath.Join(dir, ".gauntlet")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gauntlet", "config.yml"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := FindRoot(deep); !ok {
			b.Fatal("not found")
		}
	}
}
