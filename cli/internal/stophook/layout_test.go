package stophook

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// TestWorkTreeLayoutBreaksTrusted: the trusted configuration's validity
// never depends on the work tree the agent changed. Every directory the
// trusted configuration names (an entry point's path, a check's
// working_directory, a directory between them), replaced by a link out of
// the project, a link inside it, a file, or removed, never makes a stop
// approve with an error: a change that makes a trusted gate unrunnable is
// a block naming what to undo, once per turn as for a work-tree
// configuration the change broke, and the stop after it is let go. The
// same when the agent commits the change: the layout judged is the one of
// the commit the trust stands on, never HEAD's.
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
			for _, committed := range []bool{false, true} {
				name := d.name + "/" + c.name
				if committed {
					name += "/committed"
				}
				t.Run(name, func(t *testing.T) {
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
					trustAtHead(t, root)
					mustWrite(t, filepath.Join(root, "src", "sub", "wd", "a.txt"), "ok\nBAD\n")
					c.make(t, root, filepath.Join(root, filepath.FromSlash(d.rel)))
					if committed {
						monorepo.Git(t, root, "add", "-A")
						monorepo.Git(t, root, "commit", "-qm", "the agent's layout")
					}

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
}

// TestCommittedLayoutIsNoBlock: a layout the person committed before
// trusting (a file where the trusted log_dir needs a directory, or an
// entry point's directory committed as a link) is nothing the agent can
// undo: the stop never blocks on it, it answers the error the trusted
// configuration gives, whether the trust was recorded or adopted from
// HEAD.
func TestCommittedLayoutIsNoBlock(t *testing.T) {
	layouts := []struct{ name, config string }{
		{"log_dir below a file", "log_dir: blocker/logs\n"},
		{"entry path a link", ""},
	}
	for _, l := range layouts {
		for _, recorded := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/recorded=%v", l.name, recorded), func(t *testing.T) {
				root := t.TempDir()
				monorepo.Git(t, root, "init", "-q", "-b", "main")
				mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
					"base_branch: main\n"+l.config+"cli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\n"+
						"entry_points:\n  - path: src\n    checks: [nobad]\n")
				mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "nobad.yml"), "command: \"! grep -rn BAD .\"\n")
				mustWrite(t, filepath.Join(root, "blocker"), "a file\n")
				mustWrite(t, filepath.Join(root, "real", "a.txt"), "ok\n")
				if l.config == "" {
					mustRun(t, os.Symlink("real", filepath.Join(root, "src")))
				} else {
					mustWrite(t, filepath.Join(root, "src", "a.txt"), "ok\n")
				}
				mustWrite(t, filepath.Join(root, ".gitignore"), "gauntlet_logs/\n")
				monorepo.Git(t, root, "add", "-A")
				monorepo.Git(t, root, "commit", "-qm", "init")
				if recorded {
					trustAtHead(t, root)
				}
				mustWrite(t, filepath.Join(root, "real", "b.txt"), "BAD\n")
				out, _, _ := callExec(t, Options{}, runner.ExecuteRun, input(root, false))
				if out.Status == runner.StatusFailed || out.configBlock {
					t.Fatalf("a layout the person committed blocks the agent: %+v", out)
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

// trustAtHead records the work tree's configuration of root as a person's
// trust at HEAD's commit, as agent-gauntlet trust does.
func trustAtHead(t *testing.T, root string) {
	t.Helper()
	p, err := place.Locate(context.Background(), root)
	mustRun(t, err)
	files, err := config.ReadFiles(root)
	mustRun(t, err)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	mustRun(t, err)
	mustRun(t, trust.WriteRecord(p, trust.Record{TrustedAt: now, How: trust.HowYes, Commit: strings.TrimSpace(string(head)), Files: files}))
}
