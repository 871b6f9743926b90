package stophook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
)

// Invariant: a session judges or names every trusted project its stops
// judged before, and committed work is never dropped for being committed.
// When the project a stop from a directory judges is not the one the
// previous stop from there judged, the answer says so, naming both; and a
// trusted project in the session's reach that this stop does not judge,
// whose committed content differs from what its gates last saw pass (or,
// never judged, from where its trust was recorded), is named under "Not
// verified:" with the files those commits changed, as its uncommitted
// changes are.
//
// The class is generated as a table: the layouts where one stop meets two
// trusted projects (side by side; one nested in the top-level project) ×
// how the agent commits work in the first project (a new file, an edit of
// a judged file, a new file then its removal left uncommitted, two
// commits) × whether a stop judged the first project before (from its own
// directory, so that the next stop's input cwd moves away from it) × where
// the input's cwd is at the stop that answers (the other project, the top
// level). The session is at the top level.
func TestCommittedWorkInAProjectNotJudgedIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	layouts := map[string][]string{"side by side": {"app", "lib"}, "nested in the top level": {"app", "."}}
	commits := map[string]func(t *testing.T, first string){
		"a new file": func(t *testing.T, first string) {
			monorepo.Write(t, filepath.Join(first, "src", "bad.txt"), "BAD\n")
			commitAll(t, first, "new file")
		},
		"an edit of a judged file": func(t *testing.T, first string) {
			monorepo.Write(t, filepath.Join(first, "src", "ok.txt"), "ok\nBAD\n")
			commitAll(t, first, "edit")
		},
		"a new file, removed uncommitted": func(t *testing.T, first string) {
			monorepo.Write(t, filepath.Join(first, "src", "bad.txt"), "BAD\n")
			commitAll(t, first, "new file")
			if err := os.Remove(filepath.Join(first, "src", "bad.txt")); err != nil {
				t.Fatal(err)
			}
		},
		"two commits": func(t *testing.T, first string) {
			monorepo.Write(t, filepath.Join(first, "src", "one.txt"), "one\n")
			commitAll(t, first, "one")
			monorepo.Write(t, filepath.Join(first, "src", "bad.txt"), "BAD\n")
			commitAll(t, first, "two")
		},
	}
	for name, projects := range layouts {
		for how, do := range commits {
			for _, before := range []string{"judged before", "never judged"} {
				for _, cwd := range []string{"other project", "top level"} {
					if projects[1] == "." && cwd == "other project" {
						continue // the top level is the other project
					}
					t.Run(name+"/"+how+"/"+before+"/"+cwd, func(t *testing.T) {
						top := monorepo.Make(t, projects)
						for _, p := range projects {
							if err := os.Remove(filepath.Join(top, p, "src", "bad.txt")); err != nil {
								t.Fatal(err)
							}
						}
						first := filepath.Join(top, projects[0])
						getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": top})
						// A stop from the top level judges the top-level
						// project whatever the input's cwd: the first
						// project nested in it is judged by a session of its
						// own.
						judge := getenv
						if projects[1] == "." {
							judge = env(t, map[string]string{"CLAUDE_PROJECT_DIR": first})
						}
						if before == "judged before" {
							if out := stopAs(t, judge, "s1", first); out.Block() || out.Root != first {
								t.Fatalf("the first project did not pass first: %s judged, %s", out.Root, out.Message)
							}
						}
						do(t, first)
						at := map[string]string{"other project": filepath.Join(top, projects[1]), "top level": top}[cwd]
						for _, id := range []string{"s1", "s2"} {
							out := stopAs(t, getenv, id, at)
							if out.Root == first {
								if !out.Block() && how != "a new file, removed uncommitted" {
									t.Errorf("session %s: the stop judged %s, whose committed work fails, and approved: %s", id, first, out.Message)
								}
								continue
							}
							if !out.Block() && !strings.Contains(out.Message, "the trusted project "+first+" (not the project this stop judged) has ") ||
								!out.Block() && !strings.Contains(out.Message, "committed") {
								t.Errorf("session %s: the stop judged %s, approved, and does not name the work committed in %s: %s", id, out.Root, first, out.Message)
							}
							if before == "judged before" && id == "s1" && projects[1] != "." && !strings.Contains(out.Message, "an earlier stop from here judged "+first) {
								t.Errorf("the stop judged %s, the one before it %s, and does not say so: %s", out.Root, first, out.Message)
							}
						}
					})
				}
			}
		}
	}
}

// Invariant: in a repository whose trust store holds no record at all (an
// upgrade), adopting the configuration committed at HEAD never hides
// another committed configuration. Every project with a configuration
// committed at HEAD in the session's reach that the stop does not judge is
// judged by a later stop or named: the adoption notice names it, and every
// approve names its changes, committed or not, as not verified, at the
// first stop and every later one, in any session.
//
// The class is generated as a table: the committed configurations a
// person made before the upgrade (one in app; two, app and lib) × the
// configuration the agent commits before the first stop (one at the top
// level gating nothing; one in the parent of the session's directory;
// none) × the agent's work in app (uncommitted, committed) × where the
// session is (the top level, elsewhere) × which stop adopts first (the
// session's own; with lib, a session in lib, whose reach app is not in).
// The session's stops run from its own directory.
func TestUpgradeAdoptionNeverHidesACommittedConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	layouts := map[string][]string{"app": {"app"}, "app and lib": {"app", "lib"}}
	plants := map[string]string{"at the top level": ".", "in the parent of the session": "work", "none": ""}
	for name, projects := range layouts {
		for where, dir := range plants {
			for _, work := range []string{"uncommitted", "committed"} {
				for _, session := range []string{"top level", "elsewhere", "top level, lib first"} {
					if session == "top level, lib first" && len(projects) < 2 {
						continue
					}
					t.Run(name+"/"+where+"/"+work+"/"+session, func(t *testing.T) {
						top := monorepo.Make(t, projects)
						monorepo.Untrust(t, top)
						for _, p := range projects[1:] {
							if err := os.Remove(filepath.Join(top, p, "src", "bad.txt")); err != nil {
								t.Fatal(err)
							}
						}
						if dir != "" {
							monorepo.Write(t, filepath.Join(top, dir, ".gauntlet", "config.yml"), monorepo.Untrusted)
						}
						if work == "committed" {
							commitAll(t, top, "the agent's work")
						} else if dir != "" {
							monorepo.Git(t, top, "add", "--", filepath.Join(dir, ".gauntlet"))
							monorepo.Git(t, top, "commit", "-qm", "the agent's configuration")
						}
						at := map[string]string{"top level": top, "elsewhere": filepath.Join(top, "work", "inner"), "top level, lib first": top}[session]
						if session == "top level, lib first" {
							lib := filepath.Join(top, "lib")
							if out := stopAs(t, env(t, map[string]string{"CLAUDE_PROJECT_DIR": lib}), "s0", lib); out.Root != lib || out.Block() {
								t.Fatalf("the session in lib judged %s: %s", out.Root, out.Message)
							}
						}
						getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": at})
						app := filepath.Join(top, "app")
						// The session's directory, or the configuration
						// adopted above it, holds app: app is in its reach.
						reach := at == top || dir == "."
						for i, id := range []string{"s1", "s1", "s2"} {
							out := stopAs(t, getenv, id, at)
							switch {
							case out.Root == app && out.Block():
							case out.Block():
								t.Errorf("stop %d blocks on %s, not on app: %s", i, out.Root, out.Message)
							case out.Root == "" || !reach:
								// No project is judged, or app was never in
								// the session's reach.
							case !strings.Contains(out.Message, "Not verified:") || !strings.Contains(out.Message, app+" ("):
								t.Errorf("stop %d judged %s, approved, and does not name app, whose %s work no gate judged: %s", i, out.Root, work, out.Message)
							case i == 0 && strings.Contains(out.Message, "was adopted") && !strings.Contains(out.Message, "passed over"):
								t.Errorf("the adoption notice does not name the configurations passed over: %s", out.Message)
							}
						}
					})
				}
			}
		}
	}
}

// hermetic gives the test a HOME and git identity of its own.
func hermetic(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
}

// commitAll commits every change of the work tree holding dir.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	monorepo.Git(t, dir, "add", "-A")
	monorepo.Git(t, dir, "commit", "-qm", msg)
}

// A file a stop judged while it was untracked, and still is, is no
// committed work: the point a pass marks is a snapshot of the work tree,
// and only what commits since it changed counts as committed.
func TestJudgedUntrackedFileIsNotCommittedWork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	top := monorepo.Make(t, []string{"app", "lib"})
	for _, p := range []string{"app", "lib"} {
		if err := os.Remove(filepath.Join(top, p, "src", "bad.txt")); err != nil {
			t.Fatal(err)
		}
	}
	app := filepath.Join(top, "app")
	monorepo.Write(t, filepath.Join(app, "src", "new.txt"), "new\n")
	getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": top})
	if out := stopAs(t, getenv, "s1", app); out.Block() || out.Root != app {
		t.Fatalf("app did not pass first: %s judged, %s", out.Root, out.Message)
	}
	out := stopAs(t, getenv, "s1", filepath.Join(top, "lib"))
	if strings.Contains(out.Message, app+" (not the project this stop judged) has 1 file(s) changed by work committed") {
		t.Errorf("the untracked file app judged is named as committed work: %s", out.Message)
	}
}
