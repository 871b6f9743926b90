package owned

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// The gauntlet's own directories (the log directory, its store below the
// git common directory) are held open for as long as a stop or a run
// writes below them: Hold opens each one once, walking every component
// from a directory the gauntlet trusts without following a symbolic link,
// and from then on Via turns a path below a held directory into one that
// the kernel resolves from the open directory, not from its name. A
// directory replaced by a link while it is held (by a gate's command, by
// any process) cannot lead a later write elsewhere: the write lands in the
// directory that was opened, wherever it was moved, or fails when it was
// removed. Replaced tells which held directories are no longer at their
// names, for the answer to say so.
//
// Via works where the system names an open directory by a path
// (/proc/self/fd on Linux); elsewhere a directory is held (Replaced still
// tells a swap) but paths are used as they are.

// hold is one held directory.
type hold struct {
	dir  string   // the directory's path, clean and absolute
	f    *os.File // the directory, opened once
	via  string   // the path the system resolves from f, "" for none
	refs int
	// replaced is set once the directory was seen gone from its name.
	replaced bool
}

var (
	heldMu sync.Mutex
	helds  = map[string]*hold{}
)

// Hold opens dir, a directory below base (base itself trusted, dir the
// gauntlet's own), once: every component between them is opened without
// following a link, and one that is a link or not a directory is refused
// with a *RefusedError; a missing one is an error (nothing is made). Until release, Via routes
// the paths below dir through the open directory. Holding a directory
// held already only counts it again.
func Hold(base, dir string) (release func(), err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	base, err = filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if h, ok := helds[dir]; ok {
		h.refs++
		return func() { unhold(dir) }, nil
	}
	rel, ok := below(base, dir)
	if !ok {
		return nil, fmt.Errorf("hold %s: not below %s", dir, base)
	}
	parts, err := split(rel)
	if err != nil {
		return nil, err
	}
	f, err := openChain(base, parts)
	if err != nil {
		return nil, err
	}
	h := &hold{dir: dir, f: f, refs: 1}
	h.via = viaOf(f)
	helds[dir] = h
	return func() { unhold(dir) }, nil
}

// unhold drops one count of the hold of dir, closing it with the last.
func unhold(dir string) {
	heldMu.Lock()
	defer heldMu.Unlock()
	h, ok := helds[dir]
	if !ok {
		return
	}
	if h.refs--; h.refs == 0 {
		h.f.Close()
		delete(helds, dir)
	}
}

// Via is path as the system should resolve it: below (or at) a held
// directory, through the open directory; below one that is no longer at
// its name, a path where nothing can be made or found (the writer fails,
// and Replaced tells why); any other path as it is.
func Via(path string) string {
	heldMu.Lock()
	defer heldMu.Unlock()
	if len(helds) == 0 {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	var best *hold
	for _, h := range helds {
		if _, ok := below(h.dir, abs); ok && (best == nil || len(h.dir) > len(best.dir)) {
			best = h
		}
	}
	if best == nil {
		return path
	}
	rel, _ := below(best.dir, abs)
	via := best.via
	if !sameDir(best) {
		// Replaced at its name: nothing more is written below it, not
		// even in the directory held, wherever it was moved.
		best.replaced = true
		via = goneVia(best)
	}
	if via == "" {
		return path
	}
	// The held directory itself is via/.: via alone is, to lstat, the
	// system's link to the open directory.
	return via + string(filepath.Separator) + rel
}

// Unvia is err with the paths Via made (in a *fs.PathError or an
// *os.LinkError) named as the caller named them.
func Unvia(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = unviaPath(pe.Path)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		le.Old, le.New = unviaPath(le.Old), unviaPath(le.New)
	}
	return err
}

// unviaPath is p with a held directory's system path named by its path.
func unviaPath(p string) string {
	heldMu.Lock()
	defer heldMu.Unlock()
	for _, h := range helds {
		for _, via := range []string{h.via, goneVia(h)} {
			if via == "" {
				continue
			}
			if p == via || p == via+string(filepath.Separator)+"." {
				return h.dir
			}
			if strings.HasPrefix(p, via+string(filepath.Separator)) {
				return h.dir + p[len(via):]
			}
		}
	}
	return p
}

// Replaced lists the held directories that are no longer at their paths
// (moved away, removed, or replaced by a link or another directory),
// sorted: what was written below them since went to the directory held,
// not to whatever is at the path now.
func Replaced() []string {
	heldMu.Lock()
	defer heldMu.Unlock()
	var out []string
	for _, h := range helds {
		if h.replaced || !sameDir(h) {
			out = append(out, h.dir)
		}
	}
	sort.Strings(out)
	return out
}

// ReplacedNote is the sentence an answer says when a held directory was
// replaced (Replaced), "" when none was: nothing was written through
// what is at its name now, and the records the gauntlet keeps there are
// not where it looks.
func ReplacedNote() string {
	gone := Replaced()
	if len(gone) == 0 {
		return ""
	}
	return fmt.Sprintf("%s was replaced while agent-gauntlet held it open (moved, removed, or swapped for a link, by a gate's "+
		"command or another process): nothing was written through what is there now, and the logs and records of this stop "+
		"that belong there are missing", strings.Join(gone, ", "))
}

// sameDir reports whether h's path still names, without a link at its
// last component, the directory held.
func sameDir(h *hold) bool {
	fi, err := os.Lstat(h.dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	held, err := h.f.Stat()
	return err == nil && os.SameFile(fi, held)
}
