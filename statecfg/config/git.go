package config

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// maxTrackedOutput is what trackedFile keeps of git's answer: one name is
// enough to say the directory holds tracked files.
const maxTrackedOutput = 4 << 10

// trackedFile returns a file that git tracks in the directory dir (its
// path relative to the top of dir's work tree) and true, or "" and true
// when git tracks nothing there. ok is false when git cannot tell (git
// missing, dir in no work tree, any failure): the check is then skipped,
// and Clean still moves only the gauntlet's own files.
func trackedFile(ctx context.Context, dir string) (file string, ok bool) {
	if file, ok := trackedInIndex(dir); ok {
		return file, true
	}
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: dir, Args: []string{"ls-files", "-z", "--full-name", "--", "."}, Limit: maxTrackedOutput})
	if err != nil || res.ExitCode != 0 {
		return "", false
	}
	first, _, _ := strings.Cut(string(res.Stdout), "\x00")
	return first, true
}

// trackedInIndex answers trackedFile without a git process in a plain
// repository: the nearest .git at or above dir is a directory (not a linked
// worktree's or a submodule's file), no variable moves the git directory,
// the index or the work tree, and the index is one gitindex reads whole.
// ok is false otherwise: git is asked.
func trackedInIndex(dir string) (file string, ok bool) {
	for _, k := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"} {
		if os.Getenv(k) != "" {
			return "", false
		}
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	prefix := ""
	for {
		fi, err := os.Lstat(filepath.Join(d, ".git"))
		if err == nil {
			if !fi.IsDir() {
				return "", false
			}
			return trackedWithPrefix(filepath.Join(d, ".git", "index"), prefix)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		prefix = filepath.Base(d) + "/" + prefix
		d = parent
	}
}

// trackedWithPrefix returns the first path of the index file p under
// prefix ("" for any), "" when there is none.
func trackedWithPrefix(p, prefix string) (string, bool) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	// Only the paths are read: the stop hook asks this at every stop, of
	// an index of every file of the project.
	first, extensions, err := gitindex.FirstWithPrefix(data, prefix)
	if err != nil || slices.Contains(extensions, "link") {
		return "", false // a split index keeps its entries elsewhere
	}
	return first, true
}
