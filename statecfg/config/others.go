package config

import (
	"errors"
	"os"
	"path"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Bounds of the other files of .gauntlet/ that a copy of the configuration
// holds (addOthers): past them the rest is left out, the same way on disk
// and in a commit, so that the two still compare.
const (
	maxOtherFiles = 256
	maxOtherBytes = 4 << 20
	maxOtherDepth = 8
)

// addOthers adds to files, besides what the loader read, every other
// regular file under .gauntlet/ in src: the scripts and data a check's
// command may run from there, whose edit changes what the gate does as
// surely as an edit of its command. The log directory (logDir, as
// configured) is left out when it lies under .gauntlet/, and so is a file
// past the bounds above; the walk is in name order, so the files left out
// are the same on disk and in a commit. A symbolic link on disk is left
// out too: where it may point is the loader's rule for the files it reads,
// and a copy of what it points at would load where the disk does not.
func addOthers(src source, files Files, logDir string) {
	skip := ""
	if logDir != "" && !filepath.IsAbs(logDir) {
		skip = path.Clean(filepath.ToSlash(logDir))
	}
	count, size, full := 0, 0, false
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		names, err := src.dir(rel)
		if err != nil || depth > maxOtherDepth {
			return
		}
		for _, name := range names {
			child := filepath.Join(rel, name)
			key := filepath.ToSlash(child)
			if _, ok := files[key]; ok || key == skip || full {
				continue
			}
			if isLink(src, child) {
				continue
			}
			data, err := src.file(child)
			var nr *fsread.NotRegularError
			switch {
			case err == nil:
				if count >= maxOtherFiles || size+len(data) > maxOtherBytes {
					full = true
					continue
				}
				files[key], count, size = data, count+1, size+len(data)
			case errors.As(err, &nr) && nr.Mode.IsDir():
				walk(child, depth+1)
			}
		}
	}
	walk(Dir, 0)
}

// isLink reports whether rel is a symbolic link under the root of a disk
// source.
func isLink(src source, rel string) bool {
	d, ok := src.(diskSource)
	if !ok {
		return false
	}
	fi, err := os.Lstat(filepath.Join(d.root, rel))
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}
