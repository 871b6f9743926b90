package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// Invariant: one answer to "which project does the stop hook judge from
// here, with which configuration, and which trusted projects with pending
// gates does it leave unjudged": status, run by a person in a directory,
// reports the project a stop hook whose session is that directory judges
// and exactly the gates its answer lists as pending (the unjudged trusted
// projects' as "<project>: <gate>"); clean archives the log directory
// that stop wrote to (the trusted configuration's log_dir, never a
// weakened work tree's), and says which; where the stop judged no
// project, clean refuses (exit 2).
//
// The class is generated as a table over every layout of trusted projects
// × every attack of monorepo.Attacks (nothing, an untrusted configuration
// planted in front of them, log_dir moved in the work tree, the project
// renamed, deleted, replaced by a link; a configuration of the agent's own
// committed or trusted: monorepo.Retrusts) × where the person stands. Each
// trusted project first fails a real check; after the attack the stop
// hook answers, then status and clean run in the same directory.
func TestHandCommandsJudgeAsTheStopHook(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1", "CLAUDE_PROJECT_DIR": "",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
	for _, layout := range monorepo.LayoutNames {
		projects := monorepo.Layouts[layout]
		for _, a := range append(slices.Clone(monorepo.Attacks), monorepo.Retrusts...) {
			if !a.Applies(projects) {
				continue
			}
			for _, session := range monorepo.Sessions {
				t.Run(layout+"/"+a.Name+"/"+session, func(t *testing.T) {
					// Each case is a session of its own: the per-user
					// record of what a session judged (kept under HOME)
					// would carry one case's failures into the next.
					t.Setenv("HOME", t.TempDir())
					top := monorepo.Make(t, projects)
					for _, p := range projects {
						if a.Before {
							break
						}
						if out := stopIn(t, filepath.Join(top, p)); !out.Block() {
							t.Fatalf("the trusted project %s did not fail first: %s", p, out.Message)
						}
					}
					now := a.Do(t, top, projects[0])
					dir := map[string]string{"top level": top, "project": now, "elsewhere": filepath.Join(top, "work", "inner")}[session]
					if dir == "" {
						dir = top
					}
					hook := stopIn(t, dir)
					t.Chdir(dir)

					code, stdout, stderr := runMain(t, "status", "--json")
					var st struct {
						Project string   `json:"project"`
						Pending []string `json:"pending"`
					}
					if code == 0 || strings.HasPrefix(stdout, "{") {
						if err := json.Unmarshal([]byte(stdout), &st); err != nil {
							t.Fatalf("status --json (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
						}
					}
					if st.Project != hook.Root {
						t.Errorf("status reports the project %q, the stop hook judged %q (%s)\n%s", st.Project, hook.Root, hook.Message, stderr)
					}
					// The judged project's own pending gates are the same;
					// the stop hook may name more as "<place>: <gate>":
					// what this session left failing in other projects
					// (the session's record, which status, run by hand,
					// has not).
					own := func(p string) bool { return !strings.Contains(p, ": ") }
					hookOwn := slices.DeleteFunc(slices.Clone(hook.Pending), func(p string) bool { return !own(p) })
					stOwn := slices.DeleteFunc(slices.Clone(st.Pending), func(p string) bool { return !own(p) })
					extra := slices.DeleteFunc(slices.Clone(st.Pending), func(p string) bool { return slices.Contains(hook.Pending, p) })
					if !slices.Equal(nonNil(stOwn), nonNil(hookOwn)) || len(extra) > 0 {
						t.Errorf("status lists pending %q, the stop hook %q", st.Pending, hook.Pending)
					}

					if hook.Root == "" {
						// No project judged: clean refuses and touches nothing.
						code, stdout, stderr = runMain(t, "clean")
						if code != ExitUsage || !strings.Contains(stderr, "nothing was moved or deleted") {
							t.Errorf("clean without a project exited %d: %s%s", code, stdout, stderr)
						}
						return
					}
					want := hook.LogDir
					if want == "" {
						want = filepath.Join(dir, "gauntlet_logs")
					}
					logs, _ := os.ReadDir(want)
					code, stdout, stderr = runMain(t, "clean")
					if code != 0 {
						t.Fatalf("clean exited %d: %s%s", code, stdout, stderr)
					}
					if _, err := os.Stat(filepath.Join(want, "previous")); len(logs) > 0 && err != nil {
						t.Errorf("clean did not archive %s, the stop hook's log directory: %s%s", want, stdout, stderr)
					}
					if !strings.Contains(stdout, "logs in "+want+")") {
						t.Errorf("clean does not say it cleaned %s: %s", want, stdout)
					}
				})
			}
		}
	}
}

// stopIn runs the stop hook, with the real gauntlet, for a Claude Code
// session whose project directory and input's cwd are dir.
func stopIn(t *testing.T, dir string) stophook.Outcome {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "cwd": dir, "session_id": "s"})
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" {
			return dir
		}
		return os.Getenv(k)
	}
	return stophook.Run(context.Background(), stophook.Options{Agent: hookproto.Claude, Stdin: bytes.NewReader(in),
		Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Cwd: dir})
}

// runMain runs the command line args in the working directory.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
