package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// historyVars are the variables that change which history git reads for a
// commit: replace refs (moved or switched off), a grafts file, a shallow
// file, or another repository altogether.
var historyVars = []string{"GIT_REPLACE_REF_BASE", "GIT_NO_REPLACE_OBJECTS", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
	"GIT_DIR", "GIT_COMMON_DIR"}

// AncestryFixed reports whether, in the repository whose git common
// directory is commonDir, whether one commit is an ancestor of another is
// a function of their names alone, as git answers it: nothing in the
// repository can make git read a commit's parents other than as the commit
// itself names them. That holds when there is no replace ref (loose under
// refs/replace/, or packed), no grafts file, no shallow file, no reftable
// (whose refs this does not read) and no variable moving any of them.
// Anything it cannot read makes the answer false.
func AncestryFixed(commonDir string) bool {
	for _, k := range historyVars {
		if _, set := os.LookupEnv(k); set {
			return false
		}
	}
	for _, p := range []string{"info/grafts", "shallow", "reftable"} {
		if _, err := os.Lstat(filepath.Join(commonDir, filepath.FromSlash(p))); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	entries, err := os.ReadDir(filepath.Join(commonDir, "refs", "replace"))
	if len(entries) > 0 || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	packed, err := fsread.File(filepath.Join(commonDir, "packed-refs"), maxGitFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return !bytes.Contains(packed, []byte(" refs/replace/"))
}
