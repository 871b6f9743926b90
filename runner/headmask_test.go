package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestPassNamesWhatTheWorkTreeMasks: a stop judges the work tree; HEAD is
// what a push publishes and the index what the next commit records. The
// invariant: a pass names every path where HEAD or the index holds
// content that the work tree masks and that no tree a run PASSED on holds
// (the work tree judged now, an earlier passing run's, the branch's point,
// the commit the gates were trusted at); a run that failed on it, by the
// stop or by hand, excuses nothing, nor does the local base branch the
// agent moved. It names them at that stop and every later one while HEAD,
// the index and the mask stay (the pass starts no interval over them).
// The table covers every way the work tree masks a commit or the index
// (an edit committed or staged and put back, a file committed or staged
// and deleted, a deletion committed and the file put back), each way a
// run saw that content before (failed on it as a stop, failed by hand,
// failed uncommitted, passed), the base holding it (as trusted, or moved
// by the agent), for each cache setting of the gate, and the work that
// masks nothing: an uncommitted edit over the base, a commit of judged
// work with an edit on top, a clean commit, an edit staged as the work
// tree holds it.
func TestPassNamesWhatTheWorkTreeMasks(t *testing.T) {
	masks := []struct {
		name   string
		before func(t *testing.T, root string) // before the first run; nil for nothing
		// act is the agent's work after the first run; it may run the
		// gates (run, by the stop hook or by hand) and expects their status.
		act    func(t *testing.T, root string, run runAs)
		masked string // the path named; "" for none
	}{
		{"edit committed and put back", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"file committed and deleted", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "new.txt"), "BAD\n")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "agent work")
			os.Remove(filepath.Join(root, "src", "new.txt"))
		}, "src/new.txt"},
		{"deletion committed and the file put back", nil, func(t *testing.T, root string, _ runAs) {
			gitIn(t, root, "rm", "-q", "src/keep.txt")
			gitIn(t, root, "commit", "-qm", "agent work")
			write(t, filepath.Join(root, "src", "keep.txt"), "keep\n")
		}, "src/keep.txt"},
		{"uncommitted edit over the base", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "b.txt"), "edited\n")
		}, ""},
		{"judged work committed, an edit on top", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\njudged\n")
		}, func(t *testing.T, root string, _ runAs) {
			gitIn(t, root, "commit", "-qam", "judged work")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nand more\n")
		}, ""},
		{"a clean commit", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "c.txt"), "fine\n")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "clean")
		}, ""},
		{"committed, a stop failed on it, put back", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work")
			run(t, true, StatusFailed)
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"committed, a run by hand failed on it, put back", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work")
			run(t, false, StatusFailed)
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"a stop failed on it uncommitted, committed, put back", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			run(t, true, StatusFailed)
			gitIn(t, root, "commit", "-qam", "agent work")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"committed, a stop passed on it, put back", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nfine\n")
			gitIn(t, root, "commit", "-qam", "agent work")
			run(t, true, StatusPassed)
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, ""},
		{"the base as trusted holds it", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "src", "b.txt"), "edited\n")
		}, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "c.txt"), "fine\n")
			gitIn(t, root, "add", "src/c.txt")
			gitIn(t, root, "commit", "-qm", "clean")
		}, ""},
		{"the base moved by the agent holds it", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work")
			gitIn(t, root, "checkout", "-q", "main")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work on the base")
			gitIn(t, root, "checkout", "-q", "feat")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"an edit staged and put back", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "add", "src/a.txt")
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"a new file staged and deleted", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "new.txt"), "BAD\n")
			gitIn(t, root, "add", "src/new.txt")
			os.Remove(filepath.Join(root, "src", "new.txt"))
		}, "src/new.txt"},
		{"a stop failed on it staged, put back", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "add", "src/a.txt")
			run(t, true, StatusFailed)
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
		}, "src/a.txt"},
		{"an edit staged as the work tree holds it", nil, func(t *testing.T, root string, _ runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nfine\n")
			gitIn(t, root, "add", "src/a.txt")
		}, ""},
		{"a stop passed on it staged, then an edit", nil, func(t *testing.T, root string, run runAs) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nfine\n")
			gitIn(t, root, "add", "src/a.txt")
			run(t, true, StatusPassed)
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nfine\nand more\n")
		}, ""},
	}
	for _, cache := range []string{"true", "entry_point", "false"} {
		for _, m := range masks {
			t.Run(cache+"/"+m.name, func(t *testing.T) {
				root, start := maskProject(t, cache)
				ctx := context.Background()
				agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1", StartPoint: start}
				if m.before != nil {
					m.before(t, root)
				}
				if res := ExecuteRun(ctx, agent); res.Status != StatusPassed {
					t.Fatalf("first run: %s (%s)", res.Status, res.ErrorMessage)
				}
				m.act(t, root, func(t *testing.T, stop bool, want GauntletStatus) {
					t.Helper()
					opts := agent
					if !stop {
						opts = Options{Dir: root, Silent: true, StartPoint: start}
					}
					if res := ExecuteRun(ctx, opts); res.Status != want {
						t.Fatalf("run in the work: %s, want %s (%s)", res.Status, want, res.ErrorMessage)
					}
				})
				for i := range 2 {
					res := ExecuteRun(ctx, agent)
					if res.Status != StatusPassed {
						t.Fatalf("run %d after: %s", i+2, res.Status)
					}
					told := strings.Contains(res.Unverified, "which the work tree masks")
					switch {
					case m.masked == "" && told:
						t.Errorf("run %d: a mask is told where none is: %q", i+2, res.Unverified)
					case m.masked != "" && (!told || !strings.Contains(res.Unverified, m.masked)):
						t.Errorf("run %d: Unverified does not name what HEAD holds at %s: %q", i+2, m.masked, res.Unverified)
					}
				}
			})
		}
	}
}

// runAs runs the gates, as the agent's stop (stop) or by hand, and fails
// the test unless they end in want.
type runAs func(t *testing.T, stop bool, want GauntletStatus)

// maskProject is a committed project whose entry point src is gated by a
// check (cache setting cache) that fails on a file holding BAD, on branch
// feat with one commit of work, and the commit its gates were trusted at
// (main's).
func maskProject(t *testing.T, cache string) (root, start string) {
	t.Helper()
	testenv.Setenv(t)
	root = t.TempDir()
	for name, content := range map[string]string{
		".gauntlet/config.yml": "base_branch: main\nmax_retries: 3\ncli:\n  default_preference: [claude]\n" +
			"entry_points:\n  - path: src\n    checks: [nobad]\n",
		".gauntlet/checks/nobad.yml": "command: \"! grep -r BAD .\"\ncache: " + cache + "\n",
		".gitignore":                 "gauntlet_logs/\n",
		"src/a.txt":                  "ok\n",
		"src/b.txt":                  "b\n",
		"src/keep.txt":               "keep\n",
	} {
		write(t, filepath.Join(root, name), content)
	}
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "base")
	start = strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	gitIn(t, root, "checkout", "-q", "-b", "feat")
	write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\n")
	gitIn(t, root, "commit", "-qam", "work")
	return root, start
}

// TestPassNamesMaskOnTheBase: the base branch's tip is no tree a run
// passed on, and the agent can move it, so it excuses nothing HEAD holds
// that the work tree masks, also when it is HEAD itself. The invariant:
// where the base branch holds HEAD (the agent works on the base branch,
// moved the base onto its work, or fast-forwarded it there) and a point
// anchors the commits up to HEAD (the commit the gates were trusted at,
// a point seen to pass), a pass names every path where HEAD holds
// content the work tree masks and no tree a run passed on holds. The
// table generates every such position of the base by every mask (an edit
// committed and checked out back from HEAD~1, a new file committed and
// deleted) and the control without a mask, where nothing is named. The
// base's remote-tracking copy excuses only what others put there: the
// agent's commit pushed to the remote's main by URL and fetched back
// excuses nothing either (positions "pushed by URL and fetched").
func TestPassNamesMaskOnTheBase(t *testing.T) {
	positions := []struct {
		name string
		// onBase puts HEAD on the base branch before the first run.
		onBase bool
		// move moves the base after the agent's commit; nil for none.
		move func(t *testing.T, root string)
		// remote gives the project a remote, origin, fetched before the
		// first run.
		remote bool
	}{
		{"on the base branch", true, nil, false},
		{"base moved onto HEAD", false, func(t *testing.T, root string) {
			gitIn(t, root, "branch", "-f", "main", "HEAD")
		}, false},
		{"on the base branch, pushed by URL and fetched", true, pushedByURL, true},
		{"feature pushed by URL to the remote's main and fetched", false, pushedByURL, true},
		{"base fast-forwarded to HEAD", false, func(t *testing.T, root string) {
			gitIn(t, root, "checkout", "-q", "main")
			gitIn(t, root, "merge", "-q", "--ff-only", "feat")
			gitIn(t, root, "checkout", "-q", "feat")
		}, false},
	}
	masks := []struct {
		name string
		// commit commits the agent's work; mask then masks it in the work
		// tree (nil for no mask).
		commit, mask func(t *testing.T, root string)
		masked       string
	}{
		{"edit checked out back", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "src", "a.txt"), "ok\nmore\nBAD\n")
			gitIn(t, root, "commit", "-qam", "agent work")
		}, func(t *testing.T, root string) {
			gitIn(t, root, "checkout", "HEAD~1", "--", "src/a.txt")
		}, "src/a.txt"},
		{"new file deleted", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "src", "evil.txt"), "BAD\n")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "agent work")
		}, func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "src", "evil.txt"))
		}, "src/evil.txt"},
		{"none", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "src", "c.txt"), "fine\n")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "clean")
		}, nil, ""},
	}
	for _, cache := range []string{"true", "false"} {
		for _, pos := range positions {
			for _, m := range masks {
				t.Run(cache+"/"+pos.name+"/"+m.name, func(t *testing.T) {
					root, start := maskProject(t, cache)
					ctx := context.Background()
					agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1", StartPoint: start}
					if pos.onBase {
						gitIn(t, root, "checkout", "-q", "main")
					}
					if pos.remote {
						bare := filepath.Join(t.TempDir(), "origin.git")
						gitIn(t, root, "clone", "-q", "--bare", root, bare)
						gitIn(t, root, "remote", "add", "origin", bare)
						gitIn(t, root, "fetch", "-q", "origin")
					}
					if res := ExecuteRun(ctx, agent); res.Status != StatusPassed && res.Status != StatusNoChanges {
						t.Fatalf("first run: %s (%s)", res.Status, res.ErrorMessage)
					}
					m.commit(t, root)
					if pos.move != nil {
						pos.move(t, root)
					}
					if m.mask != nil {
						m.mask(t, root)
					}
					for i := range 2 {
						res := ExecuteRun(ctx, agent)
						// A stop after a pass that masked nothing may find
						// nothing changed since.
						if res.Status != StatusPassed && (m.masked != "" || res.Status != StatusNoChanges) {
							t.Fatalf("run %d after: %s (%s)", i+2, res.Status, res.ErrorMessage)
						}
						told := strings.Contains(res.Unverified, "which the work tree masks")
						switch {
						case m.masked == "" && told:
							t.Errorf("run %d: a mask is told where none is: %q", i+2, res.Unverified)
						case m.masked != "" && (!told || !strings.Contains(res.Unverified, m.masked)):
							t.Errorf("run %d: Unverified does not name what HEAD holds at %s: %q", i+2, m.masked, res.Unverified)
						}
					}
				})
			}
		}
	}
}

// pushedByURL pushes HEAD to the main of the project's remote by its URL
// (no remote-tracking ref moves) and fetches it back.
func pushedByURL(t *testing.T, root string) {
	url := strings.TrimSpace(gitIn(t, root, "remote", "get-url", "origin"))
	gitIn(t, root, "push", "-q", url, "HEAD:refs/heads/main")
	gitIn(t, root, "fetch", "-q", "origin")
}
