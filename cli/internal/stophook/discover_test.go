package stophook

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
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
// The class is generated as a table (monorepo.Layouts, Attacks, Sessions):
// where the trusted projects are (at the top level, in a subdirectory, two
// subprojects) × what the agent does (nothing; an untrusted configuration
// planted at the top level, in a sibling, in a parent of the session's
// directory; one committed at the top level or in a sibling, which a
// repository with records trusts no more than an uncommitted one; log_dir
// moved in the work tree; the trusted directory renamed with its check
// gutted, deleted, replaced by a link; committed or renamed before any
// stop, so that nothing is pending and only the answer's words can name
// the project) × where the
// session's directory is (the top level, the project, elsewhere). Each trusted
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
	for _, layout := range monorepo.LayoutNames {
		projects := monorepo.Layouts[layout]
		for _, a := range monorepo.Attacks {
			if !a.Applies(projects) {
				continue
			}
			for _, session := range monorepo.Sessions {
				t.Run(layout+"/"+a.Name+"/"+session, func(t *testing.T) {
					top := monorepo.Make(t, projects)
					for _, p := range projects {
						if a.Before {
							break
						}
						out := stopAt(t, filepath.Join(top, p), filepath.Join(top, p))
						if !out.Block() {
							t.Fatalf("the trusted project %s did not fail first: %s", p, out.Message)
						}
					}
					first := projects[0]
					now := a.Do(t, top, first)
					dir := map[string]string{"top level": top, "project": now, "elsewhere": filepath.Join(top, "work", "inner")}[session]
					if dir == "" {
						dir = top
					}
					cwd := cmp.Or(now, dir)
					out := stopAt(t, dir, cwd)
					reach := within(filepath.Join(top, first), dir) || within(dir, filepath.Join(top, first)) ||
						a.Name == "planted in the parent of the session" && within(filepath.Join(top, first), filepath.Join(top, "work"))
					named := slices.ContainsFunc(out.Pending, func(g string) bool { return strings.HasSuffix(g, "check:src:nobad") })
					switch {
					case !out.Block() && !strings.Contains(out.Message, "Not verified:"):
						t.Errorf("a silent approve: %s", out.Message)
					case reach && a.Before && !out.Block() && !strings.Contains(out.Message, filepath.Join(top, first)+" ("):
						t.Errorf("the trusted project %s is in reach and the approve does not name it: %s", first, out.Message)
					case reach && !a.Before && !named:
						t.Errorf("the trusted project %s is in reach and its pending gate is not named: %s (pending %v)", first, out.Message, out.Pending)
					case reach && !a.Gone && !out.Block():
						t.Errorf("the trusted gates can run and did not block: %s", out.Message)
					}
				})
			}
		}
	}
}

// stopAt runs the stop hook, with the real gauntlet, for a Claude Code
// session whose project directory is dir and whose input's cwd is cwd.
func stopAt(t *testing.T, dir, cwd string) Outcome {
	t.Helper()
	o := Options{Agent: hookproto.Claude, Getenv: env(t, map[string]string{"CLAUDE_PROJECT_DIR": dir}), Cwd: cwd}
	out, _, _ := callExec(t, o, runner.ExecuteRun, input(cwd, false))
	return out
}

// Invariant: the trusted projects a session's stops judge or name change
// only with the person told. Once a stop whose session is in a directory
// judged project P, every later stop from that directory, in that session
// or any other for a day, judges P again or says that P is not judged by
// it and why (its record removed, its directory gone, another project
// judged from here now, with how and when that one's record was made),
// ending in "If no person did that, the agent changed its own gates."
//
// The class is generated as a table: every layout of trusted projects ×
// every way the agent trusts a configuration of its own
// (monorepo.Retrusts: at the top level, in a sibling, in the parent of
// the session's directory, inside the project, the project renamed and
// trusted anew) × where the session is. A first stop from the session's
// directory judges its project; the agent acts; a stop of the same session
// and one of another session answer.
func TestJudgedProjectsChangeOnlyTold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
	for _, layout := range monorepo.LayoutNames {
		projects := monorepo.Layouts[layout]
		for _, a := range monorepo.Retrusts {
			if !a.Applies(projects) {
				continue
			}
			for _, session := range monorepo.Sessions {
				t.Run(layout+"/"+a.Name+"/"+session, func(t *testing.T) {
					top := monorepo.Make(t, projects)
					first := projects[0]
					dir := map[string]string{"top level": top, "project": filepath.Join(top, first), "elsewhere": filepath.Join(top, "work", "inner")}[session]
					getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": dir})
					before := stopAs(t, getenv, "s1", dir)
					if before.Root == "" {
						t.Skipf("no project judged from %s before the attack: %s", dir, before.Message)
					}
					a.Do(t, top, first)
					for _, id := range []string{"s1", "s2"} {
						out := stopAs(t, getenv, id, dir)
						if out.Root == before.Root {
							continue
						}
						if !strings.Contains(out.Message, before.Root+" is not judged by this stop: ") ||
							!strings.Contains(out.Message, "If no person did that, the agent changed its own gates.") {
							t.Errorf("session %s: the stop judged %s, before it %s, and does not say so: %s", id, out.Root, before.Root, out.Message)
						}
					}
				})
			}
		}
	}
}

// stopAs runs the stop hook, with the real gauntlet, for the Claude Code
// session id whose environment is getenv and whose input's cwd is cwd.
func stopAs(t *testing.T, getenv func(string) string, id, cwd string) Outcome {
	t.Helper()
	o := Options{Agent: hookproto.Claude, Getenv: getenv, Cwd: cwd}
	in := strings.Replace(input(cwd, false), `"session_id":"`, `"session_id":"`+id+`-`, 1)
	out, _, _ := callExec(t, o, runner.ExecuteRun, in)
	return out
}

// Invariant: a stop judges one project, and work in another trusted
// project in the session's reach never passes for judged: an approve
// names each such project whose directory holds changes as not verified.
//
// The class is generated as a table over the layouts where one stop
// meets two trusted projects (two side by side; one at the top level with
// another nested in it) × where the input's cwd is (the clean project,
// the top level, the broken project) × whether the broken work is
// committed. Only the first project is broken; the session is at the top
// level.
func TestChangedProjectNotJudgedIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
	layouts := map[string][]string{"side by side": {"app", "lib"}, "nested in the top level": {"app", "."}}
	for name, projects := range layouts {
		for _, cwd := range []string{"clean project", "top level", "broken project"} {
			for _, work := range []string{"uncommitted", "committed"} {
				t.Run(name+"/"+cwd+"/"+work, func(t *testing.T) {
					top := monorepo.Make(t, projects)
					for _, p := range projects[1:] {
						if err := os.Remove(filepath.Join(top, p, "src", "bad.txt")); err != nil {
							t.Fatal(err)
						}
					}
					want := "has 1 changed file(s)"
					if work == "committed" {
						commitAll(t, top, "the agent's work")
						want = "has committed work"
					}
					at := map[string]string{"clean project": filepath.Join(top, projects[1]), "top level": top, "broken project": filepath.Join(top, projects[0])}[cwd]
					out := stopAt(t, top, at)
					broken := filepath.Join(top, projects[0])
					if !out.Block() && !strings.Contains(out.Message, "the trusted project "+broken+" (not the project this stop judged) "+want) {
						t.Errorf("the stop judged %s, approved, and does not name %s, whose change no gate judged: %s", out.Root, broken, out.Message)
					}
				})
			}
		}
	}
}
