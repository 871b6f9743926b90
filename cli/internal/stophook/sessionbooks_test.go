package stophook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// worktreeSwaps are what an agent can do with git to the linked worktree
// its session runs in, once a stop blocked there: each returns where the
// failing work is now ("" when it is gone with its worktree).
var worktreeSwaps = map[string]func(t *testing.T, top, wt string) string{
	"move": func(t *testing.T, top, wt string) string {
		monorepo.Git(t, top, "worktree", "move", wt, wt+"2")
		return wt + "2"
	},
	"move, then add another at its path": func(t *testing.T, top, wt string) string {
		monorepo.Git(t, top, "worktree", "move", wt, wt+"2")
		monorepo.Git(t, top, "worktree", "add", "-q", "-b", "clean", wt, "main")
		return wt + "2"
	},
	"remove its git directory": func(t *testing.T, top, wt string) string {
		if err := os.RemoveAll(filepath.Join(top, ".git", "worktrees", filepath.Base(wt))); err != nil {
			t.Fatal(err)
		}
		return wt
	},
	"rename, prune, then add another at its path": func(t *testing.T, top, wt string) string {
		if err := os.Rename(wt, wt+"2"); err != nil {
			t.Fatal(err)
		}
		monorepo.Git(t, top, "worktree", "prune")
		monorepo.Git(t, top, "worktree", "add", "-q", "-b", "clean", wt, "main")
		return ""
	},
	"remove the worktree": func(t *testing.T, top, wt string) string {
		monorepo.Git(t, top, "worktree", "remove", "--force", wt)
		return ""
	},
}

// stopAgent is one stop of agent's session id whose directory is cwd.
func stopAgent(t *testing.T, getenv func(string) string, agent hookproto.Agent, id, cwd string) Outcome {
	t.Helper()
	o := Options{Agent: agent, Getenv: getenv, Cwd: cwd}
	in := strings.Replace(input(cwd, false), `"session_id":"`, `"session_id":"`+id+`-`, 1)
	out, _, _ := callExec(t, o, runner.ExecuteRun, in)
	return out
}

// Invariant: the failures a session's earlier stop blocked on are never
// forgotten by moving, removing or re-creating its worktree: every later
// stop of the same session, whatever path it reports, either judges the
// work holding them (and blocks) or names them as not verified, in the
// message and in pending, saying where that work is now, or that git no
// longer knows its worktree.
//
// The class is generated as a table: what the agent does to its linked
// worktree (worktreeSwaps) × the dialect (Claude Code, whose session
// directory is CLAUDE_PROJECT_DIR; Codex, whose is the input's cwd).
// Verdict books are keyed by the worktree's git directory, so each swap
// leaves the failing book under a key the stop at the session's path does
// not open.
func TestSessionWorktreeSwapKeepsPendingFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	for name, swap := range worktreeSwaps {
		for _, agent := range []hookproto.Agent{hookproto.Claude, hookproto.Codex} {
			t.Run(name+"/"+string(agent), func(t *testing.T) {
				top := monorepo.Make(t, []string{"."})
				if err := os.Remove(filepath.Join(top, "src", "bad.txt")); err != nil {
					t.Fatal(err)
				}
				wt := filepath.Join(filepath.Dir(top), filepath.Base(top)+"-wtB")
				t.Cleanup(func() { _ = os.RemoveAll(wt); _ = os.RemoveAll(wt + "2") })
				monorepo.Git(t, top, "worktree", "add", "-q", "-b", "feat", wt)
				monorepo.Write(t, filepath.Join(wt, "src", "bad.txt"), "BAD\n")
				getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": wt})
				if out := stopAgent(t, getenv, agent, "s1", wt); !out.Block() {
					t.Fatalf("the first stop did not block: %s", out.Message)
				}
				now := swap(t, top, wt)
				for i := range 2 {
					out := stopAgent(t, getenv, agent, "s1", wt)
					if out.Block() {
						continue // it judged failing work
					}
					if !slices.ContainsFunc(out.Pending, func(p string) bool { return strings.HasSuffix(p, "check:src:nobad") }) ||
						!strings.Contains(out.Message, "check:src:nobad") {
						t.Errorf("stop %d after the swap approved %s without naming check:src:nobad (pending %q): %s",
							i+2, out.Status, out.Pending, out.Message)
					}
					if now != "" && !strings.Contains(out.Message, now) {
						t.Errorf("stop %d after the swap does not say the work is now in %s: %s", i+2, now, out.Message)
					}
				}
			})
		}
	}
}
