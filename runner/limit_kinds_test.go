package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestRetryLimitNamesEveryEditKind: what an agent's stop at the retry
// limit says changed since the last run is told by the same identity the
// result cache keys and the interval compares (the snapshot's Key: the
// repositories inside the work tree by file, what links lead to outside
// it, a same-second edit whose size and mtime were put back), so no edit a
// gate can read goes unnamed. The fault table is every kind of edit the
// work tree can take after the limit; each must be named.
func TestRetryLimitNamesEveryEditKind(t *testing.T) {
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		edit  func(t *testing.T, root, outside string)
		named []string // each must appear in the answer
	}{
		{"content", func(t *testing.T, root, _ string) { write(t, filepath.Join(root, "src", "a.txt"), "changed\n") }, []string{"src/a.txt"}},
		{"same second, same size, mtime put back", func(t *testing.T, root, _ string) {
			p := filepath.Join(root, "src", "x.txt")
			write(t, p, "BAD\n")
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}, []string{"src/x.txt"}},
		{"nested repository file", func(t *testing.T, root, _ string) { write(t, filepath.Join(root, "src", "vendor", "v.txt"), "BAD\n") }, []string{"src/vendor/v.txt"}},
		{"nested repository commit", func(t *testing.T, root, _ string) {
			write(t, filepath.Join(root, "src", "vendor", "v.txt"), "BAD\n")
			gitIn(t, filepath.Join(root, "src", "vendor"), "commit", "-q", "-am", "bad")
		}, []string{"src/vendor"}},
		{"link target outside", func(t *testing.T, _, outside string) { write(t, filepath.Join(outside, "cfg.txt"), "BAD\n") }, []string{"src/cfg.txt"}},
		{"mode", func(t *testing.T, root, _ string) {
			if err := os.Chmod(filepath.Join(root, "src", "a.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"src/a.txt"}},
		{"delete", func(t *testing.T, root, _ string) {
			if err := os.Remove(filepath.Join(root, "src", "a.txt")); err != nil {
				t.Fatal(err)
			}
		}, []string{"src/a.txt"}},
		{"rename", func(t *testing.T, root, _ string) {
			if err := os.Rename(filepath.Join(root, "src", "a.txt"), filepath.Join(root, "src", "b.txt")); err != nil {
				t.Fatal(err)
			}
		}, []string{"src/a.txt", "src/b.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := limitProject(t, old)
			ctx := context.Background()
			agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1"}
			for i, want := range []GauntletStatus{StatusFailed, StatusRetryLimitExceeded} {
				if res := ExecuteRun(ctx, agent); res.Status != want {
					t.Fatalf("agent's run %d: %s, want %s", i+1, res.Status, want)
				}
			}
			// Right after the stop that reached the limit: a same-second
			// edit shares the second of that stop's look.
			tc.edit(t, root, outside)
			res := ExecuteRun(ctx, agent)
			if res.Status != StatusRetryLimitExceeded {
				t.Fatalf("after the edit: %s", res.Status)
			}
			if strings.Contains(res.Unverified, "nothing changed") {
				t.Errorf("Unverified says nothing changed: %q", res.Unverified)
			}
			for _, p := range tc.named {
				if !strings.Contains(res.Unverified, p) {
					t.Errorf("Unverified does not name %s: %q", p, res.Unverified)
				}
			}
		})
	}
}

// limitProject is a committed project whose entry point src is gated by
// a check failing on a file holding BAD (max_retries 1), on branch feat
// with src/bad.txt failing it. src holds a file whose mtime is old (x.txt),
// a repository of its own (vendor, a gitlink in the project), and a link
// to a file outside the work tree, in the directory it returns too.
func limitProject(t *testing.T, old time.Time) (root, outside string) {
	t.Helper()
	testenv.Setenv(t)
	root, outside = t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		".gauntlet/config.yml": "base_branch: main\nmax_retries: 1\ncli:\n  default_preference: [claude]\n" +
			"entry_points:\n  - path: src\n    checks: [nobad]\n",
		".gauntlet/checks/nobad.yml": "command: \"! grep -R BAD .\"\n",
		".gitignore":                 "gauntlet_logs/\n",
		"src/a.txt":                  "ok\n",
		"src/x.txt":                  "ok1\n",
		"src/vendor/v.txt":           "ok\n",
	} {
		write(t, filepath.Join(root, name), content)
	}
	write(t, filepath.Join(outside, "cfg.txt"), "ok\n")
	if err := os.Symlink(filepath.Join(outside, "cfg.txt"), filepath.Join(root, "src", "cfg.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(root, "src", "x.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	vendor := filepath.Join(root, "src", "vendor")
	gitIn(t, vendor, "init", "-q", "-b", "main")
	gitIn(t, vendor, "add", "-A")
	gitIn(t, vendor, "commit", "-q", "-m", "v")
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "base")
	gitIn(t, root, "checkout", "-q", "-b", "feat")
	write(t, filepath.Join(root, "src", "bad.txt"), "BAD\n")
	return root, outside
}
