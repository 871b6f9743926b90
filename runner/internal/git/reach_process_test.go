//go:build linux

package git

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A link's meaning must not depend on the process that reads it: the key
// is taken in agent-gauntlet's process, in its working directory, and a
// check reads the same link from its own. So whatever the link's target
// (relative, through .., absolute into or out of the work tree, or through
// /proc/self, /proc/thread-self, /proc/<pid>, /dev/fd or /dev/stdin,
// directly or by a chain through a link outside the work tree), and
// whatever directory the snapshot is taken from, either the snapshot holds
// no key (Unheld) or it holds the same key from every directory, and an
// edit of what a reader in src/ reaches changes it. The targets through
// /proc and /dev/fd are the ones that lead somewhere else for each process,
// and must be Unheld.
func TestReachLinkMeansTheSameToEveryProcess(t *testing.T) {
	ctx := context.Background()
	pid := strconv.Itoa(os.Getpid())
	cases := []struct {
		name, target string // target: the link src/data.txt's; ROOT and OUT are replaced
		hop          string // when set, OUT/hop is made a link to it first
		unheld       bool
	}{
		{"relative", "local.dat", "", false},
		{"relative through ..", "../src/local.dat", "", false},
		{"absolute into the tree", "ROOT/src/local.dat", "", false},
		{"absolute out of the tree", "OUT/local.dat", "", false},
		{"relative out of the tree", "../../out/local.dat", "", false},
		{"/proc/self/cwd", "/proc/self/cwd/local.dat", "", true},
		{"/proc/thread-self/cwd", "/proc/thread-self/cwd/local.dat", "", true},
		{"/proc/<pid>/cwd", "/proc/" + pid + "/cwd/local.dat", "", true},
		{"/proc/self/root", "/proc/self/root/ROOT/src/local.dat", "", true},
		{"up to / and /proc", strings.Repeat("../", 40) + "proc/self/cwd/local.dat", "", true},
		{"/dev/fd", "/dev/fd/0", "", true},
		{"/dev/stdin", "/dev/stdin", "", true},
		{"a chain through a link outside to /proc/self/cwd", "OUT/hop/local.dat", "/proc/self/cwd", true},
		{"a chain through a link outside into the tree", "OUT/hop/local.dat", "ROOT/src", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			out := filepath.Join(filepath.Dir(r.root), "out")
			sub := func(s string) string {
				return strings.NewReplacer("ROOT", r.root, "OUT", out).Replace(s)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			r.write(".gitignore", "*.dat\nlogs/\n")
			r.write("src/local.dat", "fine\n")
			r.write("local.dat", "fine\n")
			if err := os.WriteFile(filepath.Join(out, "local.dat"), []byte("fine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.hop != "" {
				if err := os.Symlink(sub(c.hop), filepath.Join(out, "hop")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(sub(c.target), filepath.Join(r.root, "src", "data.txt")); err != nil {
				t.Fatal(err)
			}
			r.commitAll("base")
			keys := map[string]string{}
			for _, dir := range []string{r.root, filepath.Join(r.root, "src"), out} {
				t.Chdir(dir)
				s, err := NewTreeSnapshot(ctx, r.root, "logs")
				if err != nil {
					t.Fatal(err)
				}
				keys[dir] = s.Key()
				unheld := s.Unheld
				s.Close()
				if c.unheld {
					if unheld == "" {
						t.Fatalf("from %s: held (key %s), yet the link leads somewhere else for each process", dir, keys[dir])
					}
					if !strings.Contains(unheld, "src/data.txt") {
						t.Errorf("the note does not name the link: %s", unheld)
					}
					continue
				}
				if unheld != "" {
					t.Fatalf("from %s: unheld: %s", dir, unheld)
				}
			}
			if c.unheld {
				return
			}
			if keys[r.root] != keys[filepath.Join(r.root, "src")] || keys[r.root] != keys[out] {
				t.Fatalf("the key depends on the working directory: %v", keys)
			}
			// An edit of what a check in src/ reaches through the link moves the key.
			t.Chdir(filepath.Join(r.root, "src"))
			reached, err := filepath.EvalSymlinks("data.txt")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(reached, []byte("BAD\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := NewTreeSnapshot(ctx, r.root, "logs")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Key() == keys[r.root] {
				t.Errorf("an edit of %s did not change the key", reached)
			}
		})
	}
}
