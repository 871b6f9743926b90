package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Bounds of the other files of .gauntlet/ that a copy of the configuration
// holds (addOthers): past them the rest is left out, the same way on disk
// and in a commit, so that the two still compare.
const (
	maxOtherFiles = 256
	maxOtherBytes = 4 << 20
	maxOtherDepth = 8
	// maxOtherDigests bounds the files past the others' bounds that the
	// copy holds as a digest (LeftOut) instead of whole.
	maxOtherDigests = 512
)

// LeftOutPrefix starts the content a copy of the configuration holds, in
// place of the file, for a file of .gauntlet/ past the copy's bounds: its
// size and SHA-256, so that an edit of it still differs from the trusted
// copy (a gate runs it from the work tree, and the answer names it as not
// verified) instead of being left out unseen.
const LeftOutPrefix = "agent-gauntlet: left out of the trusted copy by its size bound; "

// leftOut is the digest a copy holds for data past the bounds.
func leftOut(data []byte) []byte {
	return fmt.Appendf(nil, "%s%d bytes, sha256 %x\n", LeftOutPrefix, len(data), sha256.Sum256(data))
}

// tooLarge is what a copy holds for a file larger than a file is read.
var tooLarge = []byte(LeftOutPrefix + fmt.Sprintf("larger than %d bytes, content not compared\n", maxFileSize))

// addOthers adds to files, besides what the loader read, every other
// regular file under .gauntlet/ in src: the scripts and data a check's
// command may run from there, whose edit changes what the gate does as
// surely as an edit of its command. The log directory (logDir, as
// configured) is left out when it lies under .gauntlet/, and so is a file
// past the bounds above; the walk is in name order, so the files left out
// are the same on disk and in a commit. A symbolic link that leads out of
// .gauntlet/ is left out too, as a commit's .gauntlet/ reads it (missing).
func addOthers(src source, files Files, logDir string) {
	skip := ""
	if logDir != "" && !filepath.IsAbs(logDir) {
		skip = path.Clean(filepath.ToSlash(logDir))
	}
	count, size, full, digests := 0, 0, false, 0
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		names, err := src.dir(rel)
		if err != nil || depth > maxOtherDepth {
			return
		}
		for _, name := range names {
			child := filepath.Join(rel, name)
			key := filepath.ToSlash(child)
			if _, ok := files[key]; ok || key == skip || digests >= maxOtherDigests {
				continue
			}
			if linksOut(src, child) {
				continue
			}
			data, err := src.file(child)
			var nr *fsread.NotRegularError
			var tl *fsread.TooLargeError
			switch {
			case err == nil:
				if full || count >= maxOtherFiles || size+len(data) > maxOtherBytes {
					// past the bounds: a digest, never left out unseen
					full = true
					files[key], digests = leftOut(data), digests+1
					continue
				}
				files[key], count, size = data, count+1, size+len(data)
			case errors.As(err, &tl):
				files[key], digests = tooLarge, digests+1
			case errors.As(err, &nr) && nr.Mode.IsDir():
				walk(child, depth+1)
			}
		}
	}
	walk(Dir, 0)
}

// linksOut reports whether rel, under the root of a disk source, is a
// symbolic link that does not resolve to a place inside .gauntlet/.
func linksOut(src source, rel string) bool {
	d, ok := src.(diskSource)
	if !ok {
		return false
	}
	p := filepath.Join(d.root, rel)
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return false
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(d.root, Dir))
	if err != nil {
		return true
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true
	}
	in, err := filepath.Rel(dir, target)
	return err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator))
}
