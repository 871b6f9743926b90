package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestRetryLimitNamesWhatDidNotRun: an agent's stop at the retry limit
// runs no gate, so its result never describes the work tree by the
// failures the last run saw alone: it names every path changed since that
// run's snapshot (else that nothing changed), and that no gate runs. The
// table covers what the agent can do after the limit: nothing, fix the
// failure, fix it and break another entry point, break the same one more.
func TestRetryLimitNamesWhatDidNotRun(t *testing.T) {
	cases := []struct {
		name    string
		change  func(root string)
		changed []string // the paths the result must name; none: "nothing changed"
	}{
		{"no change", func(string) {}, nil},
		{"fix only", func(root string) { os.Remove(filepath.Join(root, "src", "bad.txt")) }, []string{"src/bad.txt"}},
		{"fix and break another entry point", func(root string) {
			os.Remove(filepath.Join(root, "src", "bad.txt"))
			write(t, filepath.Join(root, "lib", "bad.txt"), "BAD\n")
		}, []string{"lib/bad.txt", "src/bad.txt"}},
		{"break the same one more", func(root string) { write(t, filepath.Join(root, "src", "worse.txt"), "BAD\n") }, []string{"src/worse.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := twoEntryPoints(t)
			ctx := context.Background()
			agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1"}
			for i, want := range []GauntletStatus{StatusFailed, StatusRetryLimitExceeded} {
				if res := ExecuteRun(ctx, agent); res.Status != want {
					t.Fatalf("agent's run %d: %s, want %s", i+1, res.Status, want)
				}
			}
			tc.change(root)
			res := ExecuteRun(ctx, agent)
			if res.Status != StatusRetryLimitExceeded {
				t.Fatalf("after the change: %s", res.Status)
			}
			if !strings.Contains(res.Unverified, "no gate ran") {
				t.Errorf("Unverified does not say that no gate ran: %q", res.Unverified)
			}
			if len(tc.changed) == 0 && !strings.Contains(res.Unverified, "nothing changed since run") {
				t.Errorf("Unverified does not say that nothing changed: %q", res.Unverified)
			}
			for _, p := range tc.changed {
				if !strings.Contains(res.Unverified, p) {
					t.Errorf("Unverified does not name %s: %q", p, res.Unverified)
				}
			}
			for _, p := range []string{"src/bad.txt", "lib/bad.txt", "src/worse.txt"} {
				if strings.Contains(res.Unverified, p) && !slices.Contains(tc.changed, p) {
					t.Errorf("Unverified names %s, which did not change: %q", p, res.Unverified)
				}
			}
		})
	}
}

// twoEntryPoints is a committed project with entry points src and lib,
// each gated by a check that fails on a file holding BAD, on branch feat
// with src/bad.txt failing src's.
func twoEntryPoints(t *testing.T) string {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	for name, content := range map[string]string{
		".gauntlet/config.yml": "base_branch: main\nmax_retries: 1\ncli:\n  default_preference: [claude]\n" +
			"entry_points:\n  - path: src\n    checks: [nobad]\n  - path: lib\n    checks: [nobad]\n",
		".gauntlet/checks/nobad.yml": "command: \"! grep -r BAD .\"\n",
		".gitignore":                 "gauntlet_logs/\n",
		"src/a.txt":                  "ok\n",
		"lib/a.txt":                  "ok\n",
	} {
		write(t, filepath.Join(root, name), content)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "feat"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(t, filepath.Join(root, "src", "bad.txt"), "BAD\n")
	return root
}

// write writes content to path, making its directory.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
