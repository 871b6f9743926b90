package stophook

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// Invariant: no configuration without a trust record or a commit at HEAD
// hides a project that has a record in the repository's trust store, and a
// trusted project this stop does not judge (its directory moved, deleted
// or replaced by a link; beside the one judged) with failures pending is
// never dropped silently: the answer blocks on the trusted gates where
// they can run, else approves with "Not verified:" naming the project's
// pending gates, and lists them in its pending field. An untrusted
// configuration the stop does run is never a plain pass.
//
// The class is generated as a table: where the trusted projects are (at
// the top level, in a subdirectory, two subprojects) × what the agent does
// (an untrusted configuration planted at the top level, in a sibling, in
// a parent of the session's directory; the trusted directory renamed with
// its check gutted, deleted, replaced by a link) × where the session's
// directory is (the top level, the project, elsewhere). Each trusted
// project first fails a real check (its pending failure), then the agent
// acts, then the stop answers.
func TestUntrustedConfigurationNeverHidesATrustedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
	layouts := map[string][]string{"root": {"."}, "sub": {"app"}, "two": {"app", "lib"}}
	untrusted := "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: docs\n    checks: []\n"
	type attack struct {
		name string
		// do acts on the repository at top, whose first trusted project
		// is first; it returns that project's directory now ("" when gone)
		do func(t *testing.T, top, first string) string
		// gone: the first project can no longer run where it was
		gone bool
	}
	plant := func(dir string) func(t *testing.T, top, first string) string {
		return func(t *testing.T, top, first string) string {
			mustWrite(t, filepath.Join(top, dir, ".gauntlet", "config.yml"), untrusted)
			return filepath.Join(top, first)
		}
	}
	attacks := []attack{
		{name: "planted at the top level", do: plant(".")},
		{name: "planted in a sibling", do: plant("docs")},
		{name: "planted in the parent of the session", do: plant("work")},
		{name: "renamed and gutted", gone: true, do: func(t *testing.T, top, first string) string {
			if err := os.Rename(filepath.Join(top, first), filepath.Join(top, first+"2")); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(top, first+"2", ".gauntlet", "checks", "nobad.yml"), "command: \"true\"\n")
			return filepath.Join(top, first+"2")
		}},
		{name: "deleted", gone: true, do: func(t *testing.T, top, first string) string {
			if err := os.RemoveAll(filepath.Join(top, first)); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{name: "replaced by a link", gone: true, do: func(t *testing.T, top, first string) string {
			if err := os.Rename(filepath.Join(top, first), filepath.Join(top, first+"2")); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(top, first+"2", ".gauntlet", "checks", "nobad.yml"), "command: \"true\"\n")
			if err := os.Symlink(first+"2", filepath.Join(top, first)); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(top, first+"2")
		}},
	}
	sessions := []string{"top level", "project", "elsewhere"}
	for _, layout := range []string{"root", "sub", "two"} {
		for _, a := range attacks {
			for _, session := range sessions {
				projects := layouts[layout]
				if projects[0] == "." && (a.gone || a.name == "planted at the top level") {
					continue // the top level cannot move; its own configuration edited is a changed one
				}
				t.Run(layout+"/"+a.name+"/"+session, func(t *testing.T) {
					top := monorepo(t, projects)
					for _, p := range projects {
						out := stopAt(t, filepath.Join(top, p), filepath.Join(top, p))
						if !out.Block() {
							t.Fatalf("the trusted project %s did not fail first: %s", p, out.Message)
						}
					}
					first := projects[0]
					now := a.do(t, top, first)
					dir := map[string]string{"top level": top, "project": now, "elsewhere": filepath.Join(top, "work", "inner")}[session]
					if dir == "" {
						dir = top
					}
					cwd := cmp.Or(now, dir)
					out := stopAt(t, dir, cwd)
					reach := within(filepath.Join(top, first), dir) || within(dir, filepath.Join(top, first)) ||
						a.name == "planted in the parent of the session" && within(filepath.Join(top, first), filepath.Join(top, "work"))
					named := slices.ContainsFunc(out.Pending, func(g string) bool { return strings.HasSuffix(g, "check:src:nobad") })
					switch {
					case !out.Block() && !strings.Contains(out.Message, "Not verified:"):
						t.Errorf("a silent approve: %s", out.Message)
					case reach && !named:
						t.Errorf("the trusted project %s is in reach and its pending gate is not named: %s (pending %v)", first, out.Message, out.Pending)
					case reach && !a.gone && !out.Block():
						t.Errorf("the trusted gates can run and did not block: %s", out.Message)
					}
				})
			}
		}
	}
}

// monorepo makes a repository whose trusted projects are at projects
// (relative to its top level), each with the check nobad failing on a BAD
// file in its src, committed and trusted, on the branch work.
func monorepo(t *testing.T, projects []string) string {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, top, "init", "-q", "-b", "main")
	mustWrite(t, filepath.Join(top, ".gitignore"), "gauntlet_logs/\n")
	mustWrite(t, filepath.Join(top, "docs", "readme.txt"), "docs\n")
	mustWrite(t, filepath.Join(top, "work", "inner", "notes.txt"), "notes\n")
	for _, p := range projects {
		root := filepath.Join(top, p)
		mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"), "base_branch: main\ncli:\n  default_preference: [claude]\n"+
			"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [nobad]\n")
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "nobad.yml"), "command: \"! grep -r BAD .\"\n")
		mustWrite(t, filepath.Join(root, "src", "ok.txt"), "ok\n")
	}
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "commit", "-qm", "base")
	for _, p := range projects {
		retrust(t, filepath.Join(top, p))
	}
	gitIn(t, top, "checkout", "-qb", "work")
	for _, p := range projects {
		mustWrite(t, filepath.Join(top, p, "src", "bad.txt"), "BAD\n")
	}
	return top
}

// stopAt runs the stop hook, with the real gauntlet, for a Claude Code
// session whose project directory is dir and whose input's cwd is cwd.
func stopAt(t *testing.T, dir, cwd string) Outcome {
	t.Helper()
	o := Options{Agent: hookproto.Claude, Getenv: env(t, map[string]string{"CLAUDE_PROJECT_DIR": dir}), Cwd: cwd}
	out, _, _ := callExec(t, o, runner.ExecuteRun, input(cwd, false))
	return out
}
