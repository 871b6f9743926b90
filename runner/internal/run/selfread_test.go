package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestChecksNeverReadTheirRun pins this invariant: while a check runs, no
// file the gauntlet is writing for this run lies inside the project's work
// tree. A check reads the work tree as the agent left it (plus the logs
// of earlier runs, which the agent can delete), never the run's own output
// in progress (its log, whose header names the command, and which is the
// command's own stdout; the run's console log; the changed-files list), so
// its exit status is the one it has in a shell on the same tree.
//
// The class is generated as a table: every entry point (the root or a
// subdirectory) × every log directory (the default one, inside the root
// entry point and outside src; one nested inside src; one beside src:
// log_dir must stay inside the project root) ×
// every kind of check that reads the whole tree (grep -r inverted and
// plain, a listing of every file, a cat of every file) × a clean and a
// dirty tree, with TMPDIR outside the project or inside it. Each first run's status must be what the same command
// exits with in a shell, in the same directory, on the same tree.
func TestChecksNeverReadTheirRun(t *testing.T) {
	const needle = "BAD"
	kinds := map[string]string{
		"grep-inverted": `! grep -rn --exclude-dir=.git --exclude-dir=.gauntlet ` + needle + ` .`,
		"grep-plain":    `grep -rqI --exclude-dir=.git --exclude-dir=.gauntlet ` + needle + ` .`,
		"list-all":      `! find . -type f -not -path "./.git/*" -not -path "./.gauntlet/*" -name "*.log" | grep .`,
		"cat-all":       `! find . -type f -not -path "./.git/*" -not -path "./.gauntlet/*" -exec cat {} + | grep ` + needle,
	}
	logDirs := map[string]func(t *testing.T) string{
		"default-inside": func(*testing.T) string { return "gauntlet_logs" },
		"nested-in-src":  func(*testing.T) string { return "src/logs" },
		"sibling":        func(*testing.T) string { return "other/logs" },
	}
	trees := map[string]string{"clean": "all good\n", "dirty": "x " + needle + "\n"}
	// tmp: the system's temporary directory, or TMPDIR pointing into the
	// project (a project-local TMPDIR, as testscript's $WORK/.tmp).
	for _, tmp := range []string{"system", "inside"} {
		for _, entry := range []string{".", "src"} {
			for ldName, ld := range logDirs {
				for kind, command := range kinds {
					for tree, content := range trees {
						if tmp == "inside" && (entry != "." || ldName != "default-inside") {
							continue
						}
						name := fmt.Sprintf("tmp=%s/entry=%s/log=%s/%s/%s", tmp, entry, ldName, kind, tree)
						t.Run(name, func(t *testing.T) {
							root := selfReadProject(t, entry, ld(t), command, content)
							if tmp == "inside" {
								t.Setenv("TMPDIR", filepath.Join(root, ".tmp"))
								if err := os.Mkdir(filepath.Join(root, ".tmp"), 0o755); err != nil {
									t.Fatal(err)
								}
							}
							want := shellExit(t, filepath.Join(root, entry), command) == 0
							res := Execute(context.Background(), Options{Dir: root})
							got := res.Status == outcome.StatusPassed
							if res.Status != outcome.StatusPassed && res.Status != outcome.StatusFailed {
								t.Fatalf("run %s: %s", res.Status, res.ErrorMessage)
							}
							if got != want {
								log, _ := os.ReadFile(res.Gates[0].LogPath)
								t.Fatalf("run passed=%v, the shell passed=%v (status %s)\nlog:\n%s", got, want, res.Status, log)
							}
						})
					}
				}
			}
		}
	}
}

// selfReadProject is a git repository whose one entry point entry runs
// command as its check, with log_dir logDir, and an uncommitted file
// src/new.txt holding content.
func selfReadProject(t *testing.T, entry, logDir, command, content string) string {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	files := map[string]string{
		".gauntlet/config.yml":      fmt.Sprintf("base_branch: main\nlog_dir: %q\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: %q\n    checks: [scan]\n", logDir, entry),
		".gauntlet/checks/scan.yml": fmt.Sprintf("command: %q\n", command),
		"src/main.txt":              "main\n",
	}
	for name, c := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src", "new.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// shellExit is the exit status of `sh -c command` in dir.
func shellExit(t *testing.T, dir, command string) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("sh -c %q: %v", command, err)
	return -1
}
