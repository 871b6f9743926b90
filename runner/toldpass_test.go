package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestToldPassSpendsNoBudget: a stop that passes with gates told
// unverified lets the agent stop; it is no retry. Invariant: an agent
// session is sent back max_retries times before its limit, whatever
// approves come between (adversarial round 18, B3: with the failing
// gate's entry point moved out of the work tree the stop passed the other
// gates and spent a run, so the limit came after one block). The table is
// where such a pass falls: between the blocks, before them, twice.
func TestToldPassSpendsNoBudget(t *testing.T) {
	cases := []struct {
		name  string
		steps string // b: a stop with src in place, p: one with src moved away
	}{
		{"no pass between", "bbb"},
		{"pass between the blocks", "bpbb"},
		{"pass first", "pbbb"},
		{"passes everywhere", "pbppbpb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := toldPassProject(t)
			ctx := context.Background()
			agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1"}
			blocks := 0
			for i, step := range tc.steps {
				away := filepath.Join(filepath.Dir(root), "src-away")
				if step == 'p' {
					mustRename(t, filepath.Join(root, "src"), away)
				}
				res := ExecuteRun(ctx, agent)
				if step == 'p' {
					mustRename(t, away, filepath.Join(root, "src"))
					if res.Status != StatusPassed || res.Unverified == "" {
						t.Fatalf("stop %d with src away: %s, unverified %q; want a pass that tells what it left out", i+1, res.Status, res.Unverified)
					}
					continue
				}
				want := StatusFailed
				if blocks == 2 {
					want = StatusRetryLimitExceeded
				}
				if res.Status != want {
					t.Fatalf("stop %d (%d block(s) so far, max_retries 2): %s, want %s", i+1, blocks, res.Status, want)
				}
				blocks++
			}
		})
	}
}

// toldPassProject is a committed project with entry points src (a check
// failing on a file holding BAD) and lib (a check that passes), max_retries
// 2, on branch feat with changes in both, src's holding BAD.
func toldPassProject(t *testing.T) string {
	t.Helper()
	testenv.Setenv(t)
	root := filepath.Join(t.TempDir(), "repo")
	for name, content := range map[string]string{
		".gauntlet/config.yml": "base_branch: main\nmax_retries: 2\ncli:\n  default_preference: [claude]\n" +
			"entry_points:\n  - path: src\n    checks: [nobad]\n  - path: lib\n    checks: [libok]\n",
		".gauntlet/checks/nobad.yml": "command: \"! grep -R BAD .\"\n",
		".gauntlet/checks/libok.yml": "command: \"true\"\n",
		".gitignore":                 "gauntlet_logs/\n",
		"src/a.txt":                  "ok\n",
		"lib/b.txt":                  "ok\n",
	} {
		write(t, filepath.Join(root, name), content)
	}
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "base")
	gitIn(t, root, "checkout", "-q", "-b", "feat")
	write(t, filepath.Join(root, "src", "a.txt"), "BAD\n")
	write(t, filepath.Join(root, "lib", "b.txt"), "changed\n")
	return root
}

// mustRename renames from to to.
func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
