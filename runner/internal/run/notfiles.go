package run

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
)

// maxNotFilesNamed bounds the paths notFiles names; the rest are counted.
const maxNotFilesNamed = 5

// notFiles fails a run whose changed paths (files, relative to root) hold
// what no gate can judge: what git cannot hold as a file (a FIFO, a
// socket, a device), which a review's diff cannot show and a check may
// wait on for ever, and a file that cannot be read. That is the agent's
// change, which it can undo, never an infrastructure error: the run ends
// before its gates, failed, naming each path. Nothing is opened but a
// regular file (a FIFO is only looked at), so it never waits.
//
// held is the kept index the run's snapshot was taken in, when it was
// taken and holds every path (git.Held): then a look that found nothing
// need not be made again for what git vouches for (oddPathsHeld).
func notFiles(root string, files []string, held func() (git.Held, bool)) error {
	h, ok := held()
	found := oddPathsHeld(root, files, h, ok)
	if len(found) == 0 {
		return nil
	}
	named := strings.Join(found[:min(len(found), maxNotFilesNamed)], ", ")
	if more := len(found) - maxNotFilesNamed; more > 0 {
		named += fmt.Sprintf(" and %d more", more)
	}
	msg := "Changed paths no gate can judge: " + named + ". Remove each, or put a regular file back " +
		"(`git checkout -- <path>` restores the committed one; `chmod u+r <path>` makes a file readable), then stop again."
	return &stop{status: outcome.StatusFailed, line: msg, message: msg}
}

// oddPathsEach is oddPaths one path at a time: Lstat, then Open of a
// regular file. It is the reference oddPaths is held to, and oddPaths
// where the system has no faster way.
func oddPathsEach(root string, files []string) []string {
	var found []string
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		fi, err := os.Lstat(p)
		if err != nil {
			continue // deleted, or below what is not a directory
		}
		if what := notAFile(p, fi.Mode()); what != "" {
			found = append(found, oddPath(f, what))
		}
	}
	return found
}

// oddPath names the changed path f that is what.
func oddPath(f, what string) string { return fmt.Sprintf("%s (%s)", f, what) }

// notAFile says what the entry at p with mode m is when no gate can read it
// as a file ("" when one can: a regular file it can open, a directory, a
// symbolic link, which git holds as one whatever it leads to).
func notAFile(p string, m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		f, err := os.Open(p)
		if err != nil {
			return "a file that cannot be read"
		}
		_ = f.Close()
		return ""
	case m.IsDir(), m&fs.ModeSymlink != 0:
		return ""
	}
	return "not a file"
}
