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

// refusedNames are names `git status` lists as untracked but git refuses
// in an index: the spellings of .git that core.protectNTFS (on by
// default) or core.protectHFS (on by default on macOS) refuse, and a
// symbolic link named .gitmodules or one of its short names.
var refusedNames = []struct {
	name string
	link bool
}{
	{name: "GIT~1"}, {name: "git~1"}, {name: ".git."}, {name: ".Git"}, {name: ".GIT"},
	{name: ".git "}, {name: ".git. ."}, {name: ".git::$INDEX_ALLOCATION"},
	{name: ".g\u200cit"}, {name: ".git\u200d"},
	{name: ".gitmodules", link: true}, {name: ".GITMODULES", link: true}, {name: "GITMOD~1", link: true},
}

// A path git refuses in an index never disappears from a snapshot
// silently: every one, at every depth, and whether or not an exclude names
// an ignored directory (git then lists the ignored paths before its
// errors), is left out and named (LeftOut), makes the key uncertain (no
// cached result stands for it), and is one of the changed files.
func TestSnapshotNamesPathsGitRefuses(t *testing.T) {
	ctx := context.Background()
	for _, n := range refusedNames {
		for _, dir := range []string{"", "src/", "src/deep/er/"} {
			for _, exclude := range []bool{false, true} {
				name := dir + n.name
				t.Run(fmt.Sprintf("%q/exclude=%v", name, exclude), func(t *testing.T) {
					r := newRepo(t)
					// On by default where the file system folds them (macOS).
					r.git("config", "core.protectHFS", "true")
					r.write("src/a.txt", "one\n")
					r.write(".gitignore", "logs/\n")
					r.commitAll("base")
					r.write("logs/x.log", "log\n")
					p := filepath.Join(r.root, filepath.FromSlash(name))
					if n.link {
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.Symlink("a.txt", p); err != nil {
							t.Fatal(err)
						}
					} else {
						r.write(name, "BAD\n")
					}
					if r.git("status", "--porcelain", "-uall") == "" {
						t.Skipf("git does not list %q here", name)
					}
					var ex []string
					if exclude {
						ex = []string{"logs"}
					}
					s, err := NewTreeSnapshot(ctx, r.root, ex...)
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
