package git

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// emptySuffix names, next to a kept index, the memo of the last walk of
// takeEmpty that found no empty directory and no entry named .git: the
// hash of what it depended on, then each directory it read (top-level-
// relative, "" for the top level), each name ended by a NUL.
const emptySuffix = ".empty"

// emptyTag opens what an empty-directory memo hashes.
const emptyTag = "empty-walk 1"

// dirWalk is one walk of takeEmpty: what it depends on hashed in h (the
// top level, what the snapshot leaves out, the index's directories, then
// the identity of each directory it read, taken before its entries were),
// the directories it read in order, and whether it may be remembered:
// every directory read whole, each one's times older than before.
type dirWalk struct {
	before time.Time
	h      hash.Hash
	read   []string
	keep   bool
}

// newDirWalk starts a walk of s over the index directories indexDirs.
func (s *TreeSnapshot) newDirWalk(indexDirs []string) *dirWalk {
	w := &dirWalk{before: time.Now().Add(-filestat.Margin), h: sha256.New(), keep: s.kept != ""}
	fmt.Fprintf(w.h, "%s\x00%s\x00%d\x00", emptyTag, s.disk.top, len(s.left))
	for _, l := range s.left {
		fmt.Fprintf(w.h, "%s\x00", l)
	}
	fmt.Fprintf(w.h, "%d\x00", len(indexDirs))
	for _, d := range indexDirs {
		fmt.Fprintf(w.h, "%s\x00", d)
	}
	return w
}

// see adds the identity of the directory abs (rel from the top level) to
// the walk; a directory whose times are too recent to tell a later change
// makes the walk one not to remember.
func (w *dirWalk) see(abs, rel string) {
	st, old := filestat.Exact(abs, w.before)
	w.keep = w.keep && old
	w.read = append(w.read, rel)
	fmt.Fprintf(w.h, "%s\x00%s\x00", rel, st)
}

// readDir reads the entries of the directory abs (rel from the top level)
// after its identity: a change between the two moves the identity the
// memo holds, never only the entries. A directory that is not there (its
// identity empty) reads as nothing; any other failure makes the walk one
// not to remember.
func (w *dirWalk) readDir(abs, rel string) ([]os.DirEntry, error) {
	w.see(abs, rel)
	ents, err := os.ReadDir(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.keep = false
	}
	return ents, err
}

// sum is the walk's hash.
func (w *dirWalk) sum() string { return hex.EncodeToString(w.h.Sum(nil)) }

// walkKnown reports whether the memo beside the kept index stands for a
// walk over indexDirs now: every directory it read has the identity it
// had then, so the walk would read the same entries and find no empty
// directory and no entry named .git again. A directory's entries change
// only with its times (a name made, removed or renamed in it).
func (s *TreeSnapshot) walkKnown(indexDirs []string) bool {
	if s.kept == "" || s.depth > 0 {
		return false
	}
	data, err := fsread.File(s.kept+emptySuffix, maxOwnFile)
	if err != nil {
		return false
	}
	want, list, ok := strings.Cut(string(data), "\n")
	if !ok || !strings.HasSuffix(list, "\x00") {
		return false
	}
	w := s.newDirWalk(indexDirs)
	for _, rel := range strings.Split(strings.TrimSuffix(list, "\x00"), "\x00") {
		w.see(filepath.Join(s.disk.top, filepath.FromSlash(rel)), rel)
	}
	if w.sum() != want {
		return false
	}
	walksSkipped.Add(1)
	return true
}

// walksSkipped counts the walks a memo stood for (its tests read it).
var walksSkipped atomic.Int64

// noteWalk remembers the walk w, which found nothing, when it may be.
func (s *TreeSnapshot) noteWalk(w *dirWalk) {
	if !w.keep {
		s.forgetWalk()
		return
	}
	var b strings.Builder
	b.WriteString(w.sum() + "\n")
	for _, rel := range w.read {
		b.WriteString(rel + "\x00")
	}
	_ = writeIfDiffers(s.kept+emptySuffix, []byte(b.String()))
}

// forgetWalk removes the memo of the last walk, if any.
func (s *TreeSnapshot) forgetWalk() {
	if s.kept != "" {
		_ = os.Remove(s.kept + emptySuffix)
	}
}
