package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
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
	// maxOtherDigests bounds the files past the others' bounds that the
	// copy holds as a digest (LeftOut) instead of whole.
	maxOtherDigests = 512
)

// OtherBounds says the bounds of the other files a copy holds whole, for
// messages.
var OtherBounds = fmt.Sprintf("%d files, %d MiB", maxOtherFiles, maxOtherBytes>>20)

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
// entry under .gauntlet/ in src: the scripts and data a check's command may
// run or read from there, whose edit changes what the gate does as surely
// as an edit of its command. Each is held as its entry (entry.go): a
// regular file's content and whether it is executable, a symbolic link's
// target as written (never followed: where it leads is the link's
// business, what it names is compared). The log directory (logDir, as
// configured) is left out when it lies under .gauntlet/, and a file past
// the bounds above is held as its digest; the walk is in name order, so
// the same entries are held whole on disk and in a commit.
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
			data, err := src.entry(child)
			var nr *fsread.NotRegularError
			var tl *fsread.TooLargeError
			switch {
			case err == nil:
				if full || count >= maxOtherFiles || size+len(data) > maxOtherBytes {
					// past the bounds: a digest, never left out unseen
					full = true
					files[key], digests = pastBounds(data), digests+1
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

// pastBounds is what a copy holds for an entry past the bounds: a link
// whole (its target is short, and where it leads is what differs), a
// file's content as its digest, its kind kept.
func pastBounds(entry []byte) []byte {
	kind, body := decodeEntry(entry)
	switch kind {
	case kindLink:
		return entry
	case kindExec:
		return marked(kindExec, leftOut(body))
	}
	return leftOut(body)
}
