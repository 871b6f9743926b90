package config

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
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
			return trackedWithPrefix(filepath.Join(d, ".git"), prefix)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		prefix = filepath.Base(d) + "/" + prefix
		d = parent
	}
}

// trackedMemoName is the tracked-files memo in a git directory's records
// directory: the last answer read from its index, under the index file's
// identity (filestat).
const trackedMemoName = "tracked-memo.json"

// trackedMemo is what the tracked-files memo keeps.
type trackedMemo struct {
	// Index is the identity of the index file the answer was read from.
	Index  filestat.ID `json:"index"`
	Prefix string      `json:"prefix"`
	// First is the first path under Prefix ("" for none).
	First string `json:"first"`
}

// trackedWithPrefix returns the first path of the index of the git
// directory gitDir under prefix ("" for any), "" when there is none. The
// stop hook asks this at every stop, of an index of every file of the
// project: the answer is remembered under the index file's identity when
// its times are old enough to trust (filestat), and the memo is kept only
// where the gauntlet keeps records already.
func trackedWithPrefix(gitDir, prefix string) (string, bool) {
	index := filepath.Join(gitDir, "index")
	memo := filepath.Join(gitDir, store.Dir, trackedMemoName)
	before := time.Now().Add(-filestat.Margin)
	id, old := filestat.Of(index, before)
	if old && id != "" {
		if m, ok := readTrackedMemo(memo); ok && m.Index == id && m.Prefix == prefix {
			return m.First, true
		}
	}
	first, ok := trackedInFile(index, prefix)
	if !ok || !old || id == "" {
		return first, ok
	}
	if again, _ := filestat.Of(index, before); again == id {
		// The records' directory itself, never a link planted in its place.
		if owned.IsDir(filepath.Dir(memo)) {
			_ = atomicfile.WriteJSONUnsynced(memo, trackedMemo{Index: id, Prefix: prefix, First: first}, 0o644)
		}
	}
	return first, true
}

// readTrackedMemo reads the tracked-files memo at p; false when there is
// none that can be read.
func readTrackedMemo(p string) (trackedMemo, bool) {
	var m trackedMemo
	data, err := fsread.File(p, 64<<10)
	if err != nil || json.Unmarshal(data, &m) != nil || m.Index == "" {
		return trackedMemo{}, false
	}
	return m, true
}

// trackedInFile returns the first path of the index file p under prefix
// ("" for any), "" when there is none.
func trackedInFile(p, prefix string) (string, bool) {
	data, err := fsread.File(p, 1<<30) // the index: bounded, and a FIFO is an error, never a wait
	if errors.Is(err, fs.ErrNotExist) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	// Only the paths are read: no entry is kept.
	first, extensions, err := gitindex.FirstWithPrefix(data, prefix)
	if err != nil || slices.Contains(extensions, "link") {
		return "", false // a split index keeps its entries elsewhere
	}
	return first, true
}
