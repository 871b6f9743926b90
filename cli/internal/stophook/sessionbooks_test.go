package stophook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// Invariant: once a stop of session S judged a work tree P (the main
// one or a linked one) and left gates failing, or a clean dropped them,
// every later answer to S that does not judge P's work tree with those
// gates passing names P and those gates, in the message and in pending,
// whatever now sits at P's path (nothing, an empty directory, another
// repository, a clone) and wherever P went (moved by git or by mv, its
// whole repository moved), in every dialect. Whether a stop judges P is
// told by what P is (its git directory), never by its path.
//
// The class is generated as a table: which work tree the session judged
// (sessionKinds: the main one, a linked one) × what happened to it
// (sessionSwaps) × the dialect (hookproto.Agents' stop inputs, sessionStop),
// the later stops coming from P's path; and, for the dialects whose
// project is the input's directory, the later stop coming from an empty
// directory outside with nothing done to P.
func TestSessionWorktreeSwapKeepsPendingFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	for kind, makeP := range sessionKinds {
		for name, swap := range sessionSwaps {
			for _, agent := range sessionAgents {
				t.Run(kind+"/"+name+"/"+string(agent), func(t *testing.T) {
					top, p := makeP(t)
					getenv := env(t, nil)
					if out := sessionStop(t, getenv, agent, "s1", p); !out.Block() {
						t.Fatalf("the first stop did not block: %s", out.Message)
					}
					now := swap(t, getenv, kind, top, p)
					for i := range 2 {
						checkNamed(t, sessionStop(t, getenv, agent, "s1", p), i+2, p, now)
					}
				})
			}
		}
		for _, agent := range sessionAgents {
			t.Run(kind+"/its repository moved, next stop from there/"+string(agent), func(t *testing.T) {
				top, p := makeP(t)
				getenv := env(t, nil)
				if out := sessionStop(t, getenv, agent, "s1", p); !out.Block() {
					t.Fatalf("the first stop did not block: %s", out.Message)
				}
				moved := moveRepository(t, top)
				for i := range 2 {
					out := sessionStop(t, getenv, agent, "s1", moved)
					if kind == "linked" {
						checkNamed(t, out, i+2, p, "")
					} else {
						checkNamed(t, out, i+2, moved, "")
					}
					if strings.Contains(out.Message, "ignore rules changed") {
						t.Errorf("stop %d reads the moved repository as changed ignore rules: %s", i+2, out.Message)
					}
				}
			})
		}
		for _, agent := range []hookproto.Agent{hookproto.Codex, hookproto.Copilot, hookproto.Cursor} {
			t.Run(kind+"/next stop from an empty directory outside/"+string(agent), func(t *testing.T) {
				_, p := makeP(t)
				getenv := env(t, nil)
				if out := sessionStop(t, getenv, agent, "s1", p); !out.Block() {
					t.Fatalf("the first stop did not block: %s", out.Message)
				}
				checkNamed(t, sessionStop(t, getenv, agent, "s1", t.TempDir()), 2, p, "")
			})
		}
	}
}

// checkNamed fails t unless out, the answer to stop n of a session whose
// earlier stop blocked on check:src:nobad in the work tree at p (now at
// now, "" when no stop can know), blocks, or names that gate: as its own
// (the stop judged that very book again), or as another project's, with
// p and now.
func checkNamed(t *testing.T, out Outcome, n int, p, now string) {
	t.Helper()
	if out.Block() {
		return // it judged failing work
	}
	if !slices.ContainsFunc(out.Pending, func(g string) bool { return strings.HasSuffix(g, "check:src:nobad") }) ||
		!strings.Contains(out.Message, "check:src:nobad") {
		t.Errorf("stop %d approved %s without naming check:src:nobad (pending %q): %s", n, out.Status, out.Pending, out.Message)
	}
	if slices.Contains(out.Pending, "check:src:nobad") {
		return // its own book's
	}
	for _, where := range []string{p, now} {
		if where != "" && !strings.Contains(out.Message, where) {
			t.Errorf("stop %d does not name %s: %s", n, where, out.Message)
		}
	}
}

// sessionAgents are the dialects a session's stops come in.
var sessionAgents = []hookproto.Agent{hookproto.Claude, hookproto.Codex, hookproto.Gemini, hookproto.Cursor, hookproto.Copilot}

// sessionStop is one stop of agent's session id whose project directory
// is dir, in the agent's own input (and environment, for the dialects
// whose client names the project in a variable).
func sessionStop(t *testing.T, getenv func(string) string, agent hookproto.Agent, id, dir string) Outcome {
	t.Helper()
	var in map[string]any
	switch agent {
	case hookproto.Codex:
		in = map[string]any{"session_id": id, "turn_id": "t1", "cwd": dir, "hook_event_name": "Stop", "stop_hook_active": false}
	case hookproto.Gemini:
		in = map[string]any{"session_id": id, "cwd": dir, "hook_event_name": "AfterAgent", "prompt": "x", "prompt_response": "y"}
	case hookproto.Cursor:
		in = map[string]any{"conversation_id": id, "workspace_roots": []string{dir}, "hook_event_name": "stop", "status": "completed"}
	case hookproto.Copilot:
		in = map[string]any{"sessionId": id, "cwd": dir, "timestamp": 1}
	default:
		in = map[string]any{"session_id": id, "cwd": dir, "hook_event_name": "Stop", "stop_hook_active": false}
	}
	b, _ := json.Marshal(in)
	vars := func(k string) string {
		if row, _ := hookproto.Lookup(agent); row.ProjectEnv != "" && k == row.ProjectEnv {
			return dir
		}
		return getenv(k)
	}
	out, _, _ := callExec(t, Options{Agent: agent, Getenv: vars, Cwd: dir}, runner.ExecuteRun, string(b))
	return out
}

// sessionKinds make the work tree a session judges, holding failing work
// (a BAD file the check nobad finds): the repository's main work tree, or
// a linked one. Each returns the repository's top level and the work
// tree's.
var sessionKinds = map[string]func(t *testing.T) (top, p string){
	"main": func(t *testing.T) (string, string) {
		top := monorepo.Make(t, []string{"."})
		return top, top
	},
	"linked": func(t *testing.T) (string, string) {
		top := monorepo.Make(t, []string{"."})
		if err := os.Remove(filepath.Join(top, "src", "bad.txt")); err != nil {
			t.Fatal(err)
		}
		wt := filepath.Join(filepath.Dir(top), filepath.Base(top)+"-wtB")
		t.Cleanup(func() { _ = os.RemoveAll(wt); _ = os.RemoveAll(wt + "2") })
		monorepo.Git(t, top, "worktree", "add", "-q", "-b", "feat", wt)
		monorepo.Write(t, filepath.Join(wt, "src", "bad.txt"), "BAD\n")
		return top, wt
	},
}

// sessionSwaps are what an agent can do to the work tree p (of kind main
// or linked, in the repository whose top level is top) after a stop of
// its session blocked there: each returns where the failing work is now,
// "" when it is gone.
var sessionSwaps = map[string]func(t *testing.T, getenv func(string) string, kind, top, p string) string{
	"removed": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		removeWorkTree(t, kind, top, p)
		return ""
	},
	"removed, an empty directory made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		removeWorkTree(t, kind, top, p)
		mkdir(t, p)
		return ""
	},
	"removed, a clone made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		src := filepath.Join(t.TempDir(), "src")
		monorepo.Git(t, top, "clone", "-q", "--bare", top, src)
		removeWorkTree(t, kind, top, p)
		monorepo.Git(t, filepath.Dir(p), "clone", "-q", src, p)
		return ""
	},
	"moved": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		return moveWorkTree(t, kind, top, p)
	},
	"moved, an empty directory made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		now := moveWorkTree(t, kind, top, p)
		mkdir(t, p)
		return now
	},
	"cleaned, then removed": func(t *testing.T, getenv func(string) string, kind, top, p string) string {
		clean(t, getenv, p)
		removeWorkTree(t, kind, top, p)
		return ""
	},
	"cleaned, then moved": func(t *testing.T, getenv func(string) string, kind, top, p string) string {
		clean(t, getenv, p)
		return moveWorkTree(t, kind, top, p)
	},
	"its git directory removed": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		admin := filepath.Join(top, ".git", "worktrees", filepath.Base(p))
		if kind == "main" {
			admin = filepath.Join(top, ".git")
		}
		if err := os.RemoveAll(admin); err != nil {
			t.Fatal(err)
		}
		if kind == "main" {
			return ""
		}
		return p
	},
	"moved, another worktree added at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		now := moveWorkTree(t, kind, top, p)
		repo := top
		if kind == "main" {
			repo = p + "2"
		}
		monorepo.Git(t, repo, "worktree", "add", "-q", "-b", "clean", p, "main")
		return now
	},
	"renamed, pruned, another added at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		if kind == "main" {
			return moveWorkTree(t, kind, top, p) // nothing of the main work tree is pruned
		}
		if err := os.Rename(p, p+"2"); err != nil {
			t.Fatal(err)
		}
		monorepo.Git(t, top, "worktree", "prune")
		monorepo.Git(t, top, "worktree", "add", "-q", "-b", "clean", p, "main")
		return ""
	},
	"its repository moved": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		moveRepository(t, top)
		return "" // nothing records where it went
	},
	"its repository moved, a clone made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		monorepo.Git(t, filepath.Dir(top), "clone", "-q", moveRepository(t, top), top)
		return ""
	},
	"its repository moved, a new one made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		old := moveRepository(t, top)
		mkdir(t, top)
		monorepo.Git(t, top, "init", "-q", "-b", "main")
		if err := os.CopyFS(filepath.Join(top, ".gauntlet"), os.DirFS(filepath.Join(old, ".gauntlet"))); err != nil {
			t.Fatal(err)
		}
		monorepo.Write(t, filepath.Join(top, "src", "ok.txt"), "ok\n")
		monorepo.Git(t, top, "add", "-A")
		monorepo.Git(t, top, "commit", "-qm", "anew")
		return ""
	},
	"its repository moved, an empty directory made at its path": func(t *testing.T, _ func(string) string, kind, top, p string) string {
		moveRepository(t, top)
		mkdir(t, top)
		return ""
	},
}

// moveRepository moves the whole repository whose main work tree is top
// (a linked worktree of it is left with a broken link) and returns where
// it is now.
func moveRepository(t *testing.T, top string) string {
	t.Helper()
	now := top + "-repo"
	t.Cleanup(func() { _ = os.RemoveAll(now) })
	if err := os.Rename(top, now); err != nil {
		t.Fatal(err)
	}
	return now
}

// removeWorkTree removes the work tree p: git worktree remove for a
// linked one, the whole repository for the main one.
func removeWorkTree(t *testing.T, kind, top, p string) {
	t.Helper()
	if kind == "linked" {
		monorepo.Git(t, top, "worktree", "remove", "--force", p)
		return
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// moveWorkTree moves the work tree p away (git worktree move for a
// linked one, mv for the main one) and returns where it is now, as far as
// a stop can know: git records where a linked worktree went, while
// nothing records where a repository was moved ("").
func moveWorkTree(t *testing.T, kind, top, p string) string {
	t.Helper()
	now := p + "2"
	if kind == "linked" {
		monorepo.Git(t, top, "worktree", "move", p, now)
		return now
	}
	if err := os.Rename(p, now); err != nil {
		t.Fatal(err)
	}
	return ""
}

// mkdir makes the directory dir.
func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// clean is `agent-gauntlet clean` run in dir: the verdicts pending there
// are dropped, when and why kept.
func clean(t *testing.T, getenv func(string) string, dir string) {
	t.Helper()
	ctx := context.Background()
	j, err := Judge(ctx, dir, getenv, now)
	if err != nil {
		t.Fatal(err)
	}
	h, err := j.Housekeeping(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Clean(ctx, runner.CleanOptions{Config: h.Config, Dir: dir, Getenv: getenv,
		GatesUnknown: h.From != FromInForce, Gates: h.WorkTree}); err != nil {
		t.Fatal(err)
	}
}

// A book is known by its ID, not by its path: the session whose
// repository was moved judges it at its new place as the project it
// judged before (its failure blocks there, and once fixed the pass is
// not followed by the old place named as left failing).
func TestSessionJudgesMovedRepositoryAsItself(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	top := monorepo.Make(t, []string{"."})
	getenv := env(t, nil)
	if out := sessionStop(t, getenv, hookproto.Codex, "s1", top); !out.Block() {
		t.Fatalf("the first stop did not block: %s", out.Message)
	}
	moved := top + "-moved"
	if err := os.Rename(top, moved); err != nil {
		t.Fatal(err)
	}
	if out := sessionStop(t, getenv, hookproto.Codex, "s1", moved); !out.Block() || strings.Contains(out.Message, "no longer at") {
		t.Fatalf("the stop in the moved repository: %s %s", out.Status, out.Message)
	}
	if err := os.Remove(filepath.Join(moved, "src", "bad.txt")); err != nil {
		t.Fatal(err)
	}
	if out := sessionStop(t, getenv, hookproto.Codex, "s1", moved); out.Block() || out.Status != runner.StatusPassed ||
		strings.Contains(out.Message, top+" ") || len(out.Pending) > 0 {
		t.Fatalf("the fixed stop in the moved repository: %s %q %s", out.Status, out.Pending, out.Message)
	}
}
