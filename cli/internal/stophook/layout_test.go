package stophook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// TestWorkTreeLayoutBreaksTrusted: the trusted configuration's validity
// never depends on the work tree the agent changed. Every directory the
// trusted configuration names (an entry point's path, a check's
// working_directory, a directory between them), replaced by a link out of
// the project, a link inside it, a file, or removed, never makes a stop
// approve with an error: a change that makes a trusted gate unrunnable is
// a block naming what to undo, once per turn as for a work-tree
// configuration the change broke, and the stop after it is let go.
func TestWorkTreeLayoutBreaksTrusted(t *testing.T) {
	dirs := []struct{ name, rel string }{
		{"entry path", "src"},
		{"working_directory", "src/sub/wd"},
		{"nested directory", "src/sub"},
	}
	changes := []struct {
		name string
		make func(t *testing.T, root, abs string)
	}{
		{"link to outside", func(t *testing.T, root, abs string) {
			moved := filepath.Join(t.TempDir(), "moved")
			mustRun(t, os.Rename(abs, moved))
			mustRun(t, os.Symlink(moved, abs))
		}},
		{"link inside", func(t *testing.T, root, abs string) {
			moved := filepath.Join(root, "elsewhere")
			mustRun(t, os.Rename(abs, moved))
			mustRun(t, os.Symlink(moved, abs))
		}},
		{"file", func(t *testing.T, root, abs string) {
			mustRun(t, os.RemoveAll(abs))
			mustWrite(t, abs, "BAD\n")
		}},
		{"removed", func(t *testing.T, root, abs string) { mustRun(t, os.RemoveAll(abs)) }},
	}
	for _, d := range dirs {
		for _, c := range changes {
			t.Run(d.name+"/"+c.name, func(t *testing.T) {
				root := t.TempDir()
				monorepo.Git(t, root, "init", "-q", "-b", "main")
				mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
					"base_branch: main\ncli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\n"+
						"entry_points:\n  - path: src\n    checks: [nobad]\n")
				mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "nobad.yml"),
					"command: \"! grep -rn BAD .\"\nworking_directory: src/sub/wd\n")
				mustWrite(t, filepath.Join(root, "src", "sub", "wd", "a.txt"), "ok\n")
				mustWrite(t, filepath.Join(root, ".gitignore"), "gauntlet_logs/\n")
				monorepo.Git(t, root, "add", "-A")
				monorepo.Git(t, root, "commit", "-qm", "init")
				retrust(t, root)
				mustWrite(t, filepath.Join(root, "src", "sub", "wd", "a.txt"), "ok\nBAD\n")
				c.make(t, root, filepath.Join(root, filepath.FromSlash(d.rel)))

				o := Options{}
				out, _, _ := callExec(t, o, runner.ExecuteRun, input(root, false))
				if out.Status == runner.StatusError {
					t.Fatalf("first stop approves with an error: %+v", out)
				}
				if out.configBlock && !strings.Contains(out.Instructions, strings.SplitN(d.rel, "/", 2)[0]) {
					t.Errorf("the block does not name what to undo: %+v", out)
				}
				if !out.configBlock {
					return
				}
				next, _, _ := callExec(t, o, runner.ExecuteRun, input(root, true))
				if next.Status != runner.StatusStopHookActive {
					t.Errorf("the stop after the block: %+v", next)
				}
			})
		}
	}
}

func mustRun(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
