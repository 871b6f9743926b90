package install

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// GitignoreFile is the ignore file init adds the log directory to.
const GitignoreFile = ".gitignore"

// GitignoreEntry is the .gitignore line that ignores a log directory
// relative to the project root: "/gauntlet_logs/".
func GitignoreEntry(logDir string) string {
	return "/" + strings.Trim(filepath.ToSlash(logDir), "/") + "/"
}

// sameIgnore reports whether two .gitignore lines name the same directory
// the same way, give or take the anchoring and trailing slashes.
func sameIgnore(a, b string) bool {
	norm := func(s string) string { return strings.Trim(strings.TrimSpace(s), "/") }
	return norm(a) != "" && norm(a) == norm(b)
}

// AddToGitignore appends entry to root/.gitignore, creating the file when
// there is none and keeping everything in it, unless a line already says the
// same. added reports whether it wrote.
func AddToGitignore(root, entry string) (added bool, err error) {
	path := filepath.Join(root, GitignoreFile)
	data, err := fsread.File(path, maxSettingsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fserr.Wrap("read", path, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if sameIgnore(line, entry) {
			return false, nil
		}
	}
	add := "# agent-gauntlet run logs\n" + entry + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	if err := owned.FileParent(root, path); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|owned.NoFollow, 0o644)
	if err != nil {
		return false, fserr.Wrap("open", path, err)
	}
	_, werr := f.WriteString(add)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return false, fserr.Wrap("write", path, werr)
	}
	return true, nil
}
