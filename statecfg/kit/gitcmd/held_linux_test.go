package gitcmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Every write under a directory the gauntlet holds open (owned.Hold), by
// a git process it runs too, resolves through the held directory, never
// through its path resolved again by git: the fault table runs each shape
// of git call that writes below the store (a temporary or kept index named
// by GIT_INDEX_FILE, files checked out with --prefix, a private git
// directory named by GIT_DIR) after the store was swapped for a link to a
// copy outside, either before the call or between the gauntlet's routing
// of its paths and git's start (the moment a check of the path and git's
// own use of it would disagree). Nothing outside may change, and the
// swap is told (owned.Replaced).
func TestRunWritesThroughHeldDirectory(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	type setup func(t *testing.T, top, store string)
	readTree := func(index string) setup {
		return func(t *testing.T, top, store string) {
			gitOK(t, top, []string{"GIT_INDEX_FILE=" + filepath.Join(store, index)}, "read-tree", "HEAD")
		}
	}
	cases := []struct {
		name string
		// sub is the directory below the store the call writes in, ""
		// for the store itself.
		sub  string
		prep setup
		env  func(top, store string) []string
		args func(top, store string) []string
	}{
		{"view index read-tree", "view", nil,
			func(_, store string) []string {
				return []string{"GIT_INDEX_FILE=" + filepath.Join(store, "view", "index")}
			},
			func(_, _ string) []string { return []string{"read-tree", "HEAD"} }},
		{"view checkout-index prefix", "view", readTree("view/index"),
			func(_, store string) []string {
				return []string{"GIT_INDEX_FILE=" + filepath.Join(store, "view", "index")}
			},
			func(_, store string) []string {
				return []string{"checkout-index", "-f", "-a", "--prefix=" + filepath.Join(store, "view", "out") + "/"}
			}},
		{"kept index add", "", readTree("index"),
			func(_, store string) []string { return []string{"GIT_INDEX_FILE=" + filepath.Join(store, "index")} },
			func(_, _ string) []string { return []string{"add", "-A"} }},
		{"kept index refresh", "", readTree("index"),
			func(_, store string) []string { return []string{"GIT_INDEX_FILE=" + filepath.Join(store, "index")} },
			func(_, _ string) []string { return []string{"update-index", "-q", "--refresh"} }},
		{"temporary index in store", "gauntlet-index-1", nil,
			func(_, store string) []string {
				return []string{"GIT_INDEX_FILE=" + filepath.Join(store, "gauntlet-index-1", "index")}
			},
			func(_, _ string) []string { return []string{"read-tree", "HEAD"} }},
		{"literal git directory", "literal", func(t *testing.T, top, store string) {
			gitOK(t, top, nil, "init", "-q", "--bare", filepath.Join(store, "literal"))
		},
			func(top, store string) []string {
				return []string{"GIT_DIR=" + filepath.Join(store, "literal"), "GIT_WORK_TREE=" + top,
					"GIT_OBJECT_DIRECTORY=" + filepath.Join(top, ".git", "objects"),
					"GIT_INDEX_FILE=" + filepath.Join(store, "literal", "index")}
			},
			func(_, _ string) []string { return []string{"add", "-A"} }},
	}
	for _, c := range cases {
		for _, what := range []string{"store", "scratch"} {
			for _, when := range []string{"before the call", "after routing"} {
				if what == "scratch" && c.sub == "" {
					continue
				}
				t.Run(c.name+"/"+what+"/"+when, func(t *testing.T) {
					base := t.TempDir()
					top := filepath.Join(base, "repo")
					outside := filepath.Join(base, "outside")
					gitOK(t, base, nil, "init", "-q", top)
					must(t, os.WriteFile(filepath.Join(top, "a.txt"), []byte("a\n"), 0o644))
					gitOK(t, top, nil, "add", "a.txt")
					gitOK(t, top, nil, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
					store := filepath.Join(top, ".git", "agent-gauntlet")
					for _, d := range []string{"view", "gauntlet-index-1"} {
						must(t, os.MkdirAll(filepath.Join(store, d), 0o755))
					}
					if c.prep != nil {
						c.prep(t, top, store)
					}
					release, err := owned.Hold(filepath.Join(top, ".git"), store)
					must(t, err)
					defer release()
					// The copy outside holds what the store holds, so that a
					// write through the link succeeds and shows.
					must(t, os.CopyFS(outside, os.DirFS(store)))
					before := treeHash(t, outside)
					swapped, to := store, outside
					if what == "scratch" {
						swapped, to = filepath.Join(store, c.sub), filepath.Join(outside, c.sub)
					}
					swap := func() {
						must(t, os.Rename(swapped, swapped+".moved"))
						must(t, os.Symlink(to, swapped))
					}
					if when == "before the call" {
						swap()
					} else {
						beforeStart = swap
						defer func() { beforeStart = nil }()
					}
					res, err := Run(context.Background(), Call{Dir: top, Env: c.env(top, store), Args: c.args(top, store)})
					if when == "after routing" && (err != nil || res.ExitCode != 0) {
						// Routed before the swap, git works in the directory
						// held, wherever it went.
						t.Errorf("git failed in the held directory: %v, exit %d: %s", err, res.ExitCode, res.Stderr)
					}
					if strings.Contains(res.Stderr, "/proc/self/fd") || strings.Contains(res.Stderr, "/dev/null/") {
						t.Errorf("git's message names the routed paths, not the caller's: %s", res.Stderr)
					}
					if got := treeHash(t, outside); got != before {
						t.Errorf("git wrote outside the project through the swapped store")
					}
					if got := owned.Replaced(); what == "store" && !slices.Contains(got, store) {
						t.Errorf("Replaced() = %q, want it to name %s", got, store)
					}
				})
			}
		}
	}
}

// gitOK runs git in dir with env added, failing the test on an error.
func gitOK(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(Program, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
}

// treeHash identifies every name, mode and content below dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(p + "\x00" + fi.Mode().String() + "\x00"))
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	must(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
