package stophook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// configParting is one way the work tree's .gauntlet/ (or the record of
// the trusted one) parts from the configuration a person trusted.
type configParting struct {
	name  string
	apply func(t *testing.T, root string)
	// unread marks a parting that leaves the person's record unread:
	// every answer must say so, whatever a stand-in for it holds.
	unread bool
}

// configPartings are the ways the configuration in force and the work
// tree's can come apart: a file of .gauntlet/ changed, added or removed
// (checks, reviews, config.yml, a helper the loader does not read),
// config.yml broken, the whole .gauntlet/ deleted, and the gauntlet's
// store (where the person's record is kept) moved away and replaced by a
// symbolic link, so that the record cannot be read.
var configPartings = []configParting{
	{"check changed", writes(".gauntlet/checks/lint.yml", "command: \"true\"\n"), false},
	{"check added", writes(".gauntlet/checks/test.yml", "command: make test\n"), false},
	{"review added", writes(".gauntlet/reviews/r.md", "Review.\n"), false},
	{"helper added", writes(".gauntlet/run.sh", "#!/bin/sh\n"), false},
	{"check removed", func(t *testing.T, root string) { mustRemove(t, filepath.Join(root, ".gauntlet", "checks", "vet.yml")) }, false},
	{"config.yml changed", func(t *testing.T, root string) {
		data, err := os.ReadFile(filepath.Join(root, ".gauntlet", "config.yml"))
		if err != nil {
			data = nil
		}
		mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"), string(data)+"# edited\n")
	}, false},
	{"config.yml broken", writes(".gauntlet/config.yml", "entry_points: [\n"), false},
	{".gauntlet deleted", func(t *testing.T, root string) { mustRemove(t, filepath.Join(root, ".gauntlet")) }, false},
	{"store replaced by a link, the weakened check committed", func(t *testing.T, root string) {
		// A repository for real, HEAD holding the agent's configuration:
		// HEAD's stands in for the record that cannot be read.
		mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: \"true\"\n")
		monorepo.Git(t, root, "init", "-q")
		monorepo.Git(t, root, "add", "-A")
		monorepo.Git(t, root, "-c", "user.name=agent", "-c", "user.email=agent@example.invalid", "-c", "commit.gpgsign=false",
			"commit", "-qm", "the agent's")
		store := filepath.Join(root, ".git", "agent-gauntlet")
		if err := os.Rename(store, filepath.Join(t.TempDir(), "moved")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(t.TempDir(), store); err != nil {
			t.Fatal(err)
		}
	}, true},
}

// writes is a parting that writes content to rel below the project root.
func writes(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, root string) { mustWrite(t, filepath.Join(root, filepath.FromSlash(rel)), content) }
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

// TestEveryAnswerSaysTheConfigurationParted pins the invariant of the
// class "the configuration in force differs from the work tree's, and an
// answer does not say so": every answer about a project (an approve on
// any path: loop signal, interval, lock, retry limit, disabled, no
// changes, cache hit, error; and a block) given while the work tree's
// .gauntlet/ is not the trusted one, or the trusted record cannot be
// read, says so in what the person is shown, naming each file that
// differs or why the record cannot be used. The table crosses every
// answer path (approvePaths, and a block) with every way the two can part
// (configPartings). The answers given before any project is known (bad
// input, the gauntlet's own reviewer, an aborted turn, no project) have
// nothing to compare and are left out.
func TestEveryAnswerSaysTheConfigurationParted(t *testing.T) {
	paths := append([]approvePath{{name: "block", run: runner.StatusFailed, setup: stopIn(false)}}, approvePaths...)
	compared := 0
	for _, path := range paths {
		switch path.name {
		case "invalid input", "gauntlet's own review CLI", "cursor turn aborted", "no project":
			continue
		}
		for _, parting := range configPartings {
			t.Run(path.name+"/"+parting.name, func(t *testing.T) {
				root := gatedProject(t, path.extra)
				logDir := filepath.Join(root, "gauntlet_logs")
				getenv := env(t, path.env)
				st := path.setup(t, root, logDir, getenv)
				parting.apply(t, root)
				status, _, err := trust.Inspect(context.Background(), root)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"trusted configuration record"}
				if !parting.unread {
					// Which files differ is Inspect's to tell
					// (statecfg/trust's TestInspectTellsEveryDifference).
					if status.Trusted && status.Unusable == "" {
						return // this path's setup and this parting cancel out
					}
					want = toldOf(status)
				}
				compared++
				execute := func(context.Context, runner.Options) runner.RunResult {
					return runner.RunResult{Status: cmpStatus(path.run), ErrorMessage: "it broke"}
				}
				agent := hookproto.Claude
				if path.only != "" {
					agent = path.only
				}
				if st.afterBlock {
					first := st
					first.continuing = false
					callExec(t, Options{Agent: agent, Getenv: getenv}, execute, first.in(agent))
				}
				out, _, _ := callExec(t, Options{Agent: agent, Getenv: getenv}, execute, st.in(agent))
				for _, want := range want {
					if !strings.Contains(out.Message, want) {
						t.Errorf("answered %s (%s) while the configuration parted (%s), without %q: %q",
							out.Status, map[bool]string{true: "block", false: "approve"}[out.Block()], status.Describe(), want, out.Message)
					}
				}
			})
		}
	}
	if compared < len(paths)*len(configPartings)/2 {
		t.Errorf("only %d answers were given with the configuration parted: the table tests little", compared)
	}
}

// cmpStatus is the run's status, passed when the path does not run.
func cmpStatus(s runner.GauntletStatus) runner.GauntletStatus {
	if s == "" {
		return runner.StatusPassed
	}
	return s
}

// toldOf is what an answer must hold for the configuration st: that the
// record cannot be used (what differs from a stand-in for it is no
// difference from what a person trusted), else each file that differs.
func toldOf(st trust.Status) []string {
	if st.Unusable != "" {
		return []string{"trusted configuration record"}
	}
	var want []string
	for _, list := range [][]string{st.Added, st.Changed, st.Removed} {
		want = append(want, list...)
	}
	if len(want) == 0 {
		want = append(want, "not trusted")
	}
	return want
}
