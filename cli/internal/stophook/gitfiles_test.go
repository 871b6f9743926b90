package stophook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// TestFifoAtGitFiles: an answer names the real reason. A FIFO planted at
// any of git's fixed files of the git directory is found before anything
// runs git, and every stop names it: the first stop of a turn blocks
// naming the file (no wait on the deadline), the stop right after that
// block is let go naming it too, never blaming the deadline.
func TestFifoAtGitFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs are a unix file kind")
	}
	var files []string
	files = append(files, gitDirFiles...)
	files = append(files, commonDirFiles...)
	for _, rel := range files {
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			root := t.TempDir()
			monorepo.Git(t, root, "init", "-q", "-b", "main")
			mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
				"cli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [nobad]\n")
			mustWrite(t, filepath.Join(root, ".gauntlet", "checks", "nobad.yml"), "command: \"! grep -rn BAD .\"\n")
			mustWrite(t, filepath.Join(root, "src", "a.txt"), "ok\n")
			monorepo.Git(t, root, "add", "-A")
			monorepo.Git(t, root, "commit", "-qm", "init")
			retrust(t, root)
			mustWrite(t, filepath.Join(root, "src", "a.txt"), "ok\nBAD\n")
			path := filepath.Join(root, ".git", rel)
			mustRun(t, removeIfThere(path))
			ruleMkdir(t, filepath.Dir(path))
			ruleMkfifo(t, path)

			o := Options{Deadline: 3 * time.Second, Now: time.Now}
			for _, stop := range []struct {
				name       string
				continuing bool
				status     runner.GauntletStatus
			}{{"first stop", false, runner.StatusFailed}, {"later stop", true, runner.StatusStopHookActive}} {
				out, _, _ := callExec(t, o, runner.ExecuteRun, input(root, stop.continuing))
				if out.Status != stop.status || !strings.Contains(out.Message, filepath.ToSlash(rel)) {
					t.Errorf("%s: %+v", stop.name, out)
				}
			}
		})
	}
}

// removeIfThere removes the file at p, if any.
func removeIfThere(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
