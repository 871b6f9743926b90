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
// names, for the answer to say so. A directory held with HoldRemade (the
// log directory: the gauntlet's own, holding only its own files) that was
// removed, nothing at its name, is made again at its name by the next
// write below it, which goes there; anything else at its name (another
// directory, a link, a file) is never written through.
//
// Via works where the system names an open directory by a path
// (/proc/self/fd on Linux); elsewhere a directory is held (Replaced still
// tells a swap) but paths are used as they are.

// hold is one held directory.
type hold struct {
	dir   string   // the directory's path, clean and absolute
	base  string   // the trusted directory it was reached from
	parts []string // its path below base
	f     *os.File // the directory, opened once (again once remade)
	via   string   // the path the system resolves from f, "" for none
	refs  int
	// remake is set for a directory made again when removed (HoldRemade).
	remake bool
	// replaced is set once the directory was seen gone from its name.
	replaced bool
}

// fate is what became of a held directory while it was held.
type fate int

const (
	// fateRemade is a directory removed from its name and made again.
	fateRemade fate = iota + 1
	// fateReplaced is one that something else took the name of, or
	// that is gone and not made again.
	fateReplaced
)

var (
	heldMu sync.Mutex
	helds  = map[string]*hold{}
	// fates are what became of the directories held, kept after their
	// release for the answer to tell (ReplacedNote), until a directory is
	// held again while none is.
	fates = map[string]fate{}
)

// Hold opens dir, a directory below base (base itself trusted, dir the
// gauntlet's own), once: every component between them is opened without
// following a link, and one that is a link or not a directory is refused
// with a *RefusedError; a missing one is an error (nothing is made). Until release, Via routes
// the paths below dir through the open directory. Holding a directory
// held already only counts it again.
func Hold(base, dir string) (release func(), err error) { return hold1(base, dir, false) }

// HoldRemade is Hold for a directory that holds only the gauntlet's own
// files (the log directory): removed while held, with nothing at its name,
// it is made again there (through no link, as MkdirAll makes it) by the
// next write below it, and RemadeNote says so. Anything else at its
// name is treated as by Hold.
func HoldRemade(base, dir string) (release func(), err error) { return hold1(base, dir, true) }

// hold1 is Hold, remaking the directory when remake is set.
func hold1(base, dir string, remake bool) (release func(), err error) {
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
		h.remake = h.remake || remake
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
	if len(helds) == 0 {
		// A stop or a run that holds nothing yet starts afresh.
		clear(fates)
	}
	h := &hold{dir: dir, base: base, parts: parts, f: f, refs: 1, remake: remake}
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
	best, rel := heldBelow(path)
	if best == nil {
		return path
	}
	if !inPlace(best) {
		// Replaced at its name: nothing more is written below it, not
		// even in the directory held, wherever it was moved.
		if via := goneVia(best); via != "" {
			return via + string(filepath.Separator) + rel
		}
		return path
	}
	via := best.via
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
		if !inPlace(h) {
			out = append(out, h.dir)
		}
	}
	sort.Strings(out)
	return out
}

// ReplacedNote is the sentence an answer says when a held directory was
// replaced while held (Replaced), also after its release, "" when none
// was: nothing was written through what is at its name now, and the
// records the gauntlet keeps there are not where it looks.
func ReplacedNote() string {
	if gone := fated(fateReplaced); len(gone) > 0 {
		return fmt.Sprintf("%s was replaced while agent-gauntlet held it open (moved, removed, or swapped for a link, "+
			"a directory or a file, by a gate's command or another process): nothing was written through what is there now, and "+
			"the logs and records of this stop that belong there are missing", strings.Join(gone, ", "))
	}
	return ""
}

// RemadeNote is the sentence an answer says when a directory held with
// HoldRemade was removed while held and made again, "" when none was:
// the stop's logs and records are there, the earlier runs' logs gone.
func RemadeNote() string {
	if remade := fated(fateRemade); len(remade) > 0 {
		return fmt.Sprintf("%s was removed while agent-gauntlet held it open (by a gate's command, `git clean -X` among them, "+
			"or another process): agent-gauntlet made it again and wrote this stop's logs and records there; the logs of "+
			"earlier runs that it held are gone", strings.Join(remade, ", "))
	}
	return ""
}

// fated lists, sorted, the directories held whose fate is f, once a
// removal no write met yet is met.
func fated(f fate) []string {
	Replaced()
	heldMu.Lock()
	defer heldMu.Unlock()
	var out []string
	for dir, got := range fates {
		if got == f {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}

// inPlace reports whether h is still at its name, once made again there
// when it was removed and may be (HoldRemade); the caller holds heldMu.
// What it finds is kept in fates.
func inPlace(h *hold) bool {
	if !h.replaced && sameDir(h) {
		return true
	}
	if !h.replaced && h.remake && remade(h) {
		fates[h.dir] = max(fates[h.dir], fateRemade)
		return true
	}
	h.replaced = true
	fates[h.dir] = fateReplaced
	return false
}

// remade makes h's directory again when nothing is at its name, through
// no link (as MkdirAll), and holds the new one in place of the old;
// false when it is not made and held.
func remade(h *hold) bool {
	if _, err := os.Lstat(h.dir); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	r, err := os.OpenRoot(h.base)
	if err != nil {
		return false
	}
	err = mkdirAll(r, h.base, filepath.Join(h.parts...), 0o755)
	r.Close()
	if err != nil {
		return false
	}
	f, err := openChain(h.base, h.parts)
	if err != nil {
		return false
	}
	h.f.Close()
	h.f, h.via = f, viaOf(f)
	return sameDir(h)
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
