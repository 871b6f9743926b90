// Package gitdir finds, without running git, where the repository of a
// directory keeps its files: the work tree's top level, its git directory
// and the common directory that every worktree of the repository shares
// (what `git rev-parse --show-toplevel --git-dir --git-common-dir` name
// when no GIT_* variable moves them). It only stats and reads git's small
// pointer files, so it fits the stop hook's hot path.
package gitdir

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Names of git's entries and pointer files.
const (
	// Entry marks a work tree's top level: a directory, or a file
	// ("gitdir: <path>") in linked worktrees and submodules.
	Entry         = ".git"
	commonDirFile = "commondir"
	gitDirPrefix  = "gitdir:"
	// maxPointerSize bounds a pointer file read.
	maxPointerSize = 64 << 10
)

// Dirs are the places of one repository, absolute.
type Dirs struct {
	// TopLevel is the work tree's top level: the directory holding .git.
	TopLevel string
	// GitDir is the work tree's git directory; CommonDir the one shared by
	// every worktree (GitDir itself in a plain repository).
	GitDir    string
	CommonDir string
}

// Find returns the places of the repository whose work tree holds dir (an
// absolute path): the nearest .git at or above dir, a directory or a
// "gitdir:" file, and that git directory's commondir file. ok is false
// when there is none or a pointer file cannot be read.
func Find(dir string) (d Dirs, ok bool) {
	for {
		dotGit := filepath.Join(dir, Entry)
		if fi, err := os.Stat(dotGit); err == nil {
			gitDir := dotGit
			if !fi.IsDir() {
				gitDir = readPointer(dotGit, gitDirPrefix)
				if gitDir == "" {
					return Dirs{}, false
				}
			}
			d = Dirs{TopLevel: dir, GitDir: gitDir, CommonDir: gitDir}
			if common := readPointer(filepath.Join(gitDir, commonDirFile), ""); common != "" {
				d.CommonDir = common
			}
			return d, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Dirs{}, false
		}
		dir = parent
	}
}

// readPointer reads a one-line file of git's pointing at a directory
// (".git" files say "gitdir: <path>", commondir files hold the path alone)
// and returns that directory, made absolute against the file's directory;
// "" when there is none.
func readPointer(file, prefix string) string {
	data, err := fsread.File(file, maxPointerSize)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	return filepath.Clean(target)
}
