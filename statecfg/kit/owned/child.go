package owned

import (
	"os"
	"path/filepath"
	"strings"
)

// A child process (git, writing a temporary index or checking files out
// below the gauntlet's store) is given paths, not open directories, and
// resolves them itself, later: a held directory swapped for a link in
// between would lead its writes where the link leads. Child closes that
// gap where the system names an open directory by a path (Linux): each
// held directory a path of the child's falls below is handed to the
// child as an open file (exec.Cmd.ExtraFiles), with the directories
// below it that the path goes through, and the path becomes one the
// child resolves from its own descriptor, so that whatever is at their
// names when the child writes, the write lands in the directory held.
// Elsewhere the paths are given as they are (Replaced still tells a
// swap).

// Child routes the paths given to one child process through the
// directories held open; the zero value is ready to use. Close it once
// the child started.
type Child struct {
	files []*os.File
	// slot is the index in files of each directory opened, by path.
	slot map[string]int
	// named are the paths handed out in place of a directory's name
	// (the child's descriptors, the held directories gone), and the names.
	named [][2]string
}

// Path is path as the child should be given it: below a held directory,
// through the child's own descriptor of the deepest directory of path
// that exists, opened from the held one through no link (only what the
// child makes itself is left to it to resolve); through a link below the
// held directory, or below one no longer at its name, a path where
// nothing can be made or found (as Via); any other path as it is. A
// trailing separator is kept.
func (c *Child) Path(path string) string {
	heldMu.Lock()
	defer heldMu.Unlock()
	best, rel := heldBelow(path)
	if best == nil {
		return path
	}
	trailing := strings.HasSuffix(path, string(filepath.Separator))
	if !inPlace(best) {
		if via := goneVia(best); via != "" {
			c.named = append(c.named, [2]string{via, best.dir})
			return via + string(filepath.Separator) + rel
		}
		return path
	}
	if best.via == "" {
		return path
	}
	// The directories between the held one and the path's last
	// component are opened here too, through no link: what git is given
	// is then bound to a directory at every step it does not make itself.
	dirs, last := splitRel(rel, trailing)
	f, used, err := openBelow(best.f, dirs)
	if err != nil {
		c.named = append(c.named, [2]string{goneVia(best), best.dir})
		return goneVia(best) + string(filepath.Separator) + rel
	}
	rest := append(dirs[used:], last...)
	key := filepath.Join(append([]string{best.dir}, dirs[:used]...)...)
	n, ok := c.slot[key]
	if ok {
		f.Close()
	} else {
		if c.slot == nil {
			c.slot = map[string]int{}
		}
		n = len(c.files)
		c.files = append(c.files, f)
		c.slot[key] = n
		c.named = append(c.named, [2]string{childVia(n), key})
	}
	out := childVia(n) + string(filepath.Separator) + filepath.Join(append([]string{"."}, rest...)...)
	if trailing {
		out += string(filepath.Separator)
	}
	return out
}

// splitRel is rel's directory components and its last one (none when
// rel names a directory, ending in a separator, or is ".").
func splitRel(rel string, dir bool) (dirs, last []string) {
	if rel == "." {
		return nil, nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if dir {
		return parts, nil
	}
	return parts[:len(parts)-1], parts[len(parts)-1:]
}

// Arg is a command-line argument or an environment entry as the child
// should be given it: an absolute path, or one after the first "=" of
// an option (`--prefix=<path>`) or a variable (`GIT_INDEX_FILE=<path>`),
// routed by Path.
func (c *Child) Arg(arg string) string {
	if filepath.IsAbs(arg) {
		return c.Path(arg)
	}
	if i := strings.IndexByte(arg, '='); i > 0 && filepath.IsAbs(arg[i+1:]) {
		return arg[:i+1] + c.Path(arg[i+1:])
	}
	return arg
}

// Named is text the child wrote (its error messages) with the paths
// Path handed out named as the caller named them.
func (c *Child) Named(text string) string {
	for _, n := range c.named {
		via, name := n[0], n[1]
		text = strings.ReplaceAll(text, via+string(filepath.Separator)+"."+string(filepath.Separator), name+string(filepath.Separator))
		text = strings.ReplaceAll(text, via+string(filepath.Separator), name+string(filepath.Separator))
	}
	return text
}

// Files are the open directories to hand to the child, in the order of
// its descriptors from 3 on (exec.Cmd.ExtraFiles).
func (c *Child) Files() []*os.File { return c.files }

// Close closes the child's copies of the held directories.
func (c *Child) Close() {
	for _, f := range c.files {
		f.Close()
	}
	c.files, c.slot, c.named = nil, nil, nil
}

// heldBelow is the innermost held directory path is below (or at), and
// path relative to it; nil when none. The caller holds heldMu.
func heldBelow(path string) (*hold, string) {
	if len(helds) == 0 {
		return nil, ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, ""
	}
	var best *hold
	for _, h := range helds {
		if _, ok := below(h.dir, abs); ok && (best == nil || len(h.dir) > len(best.dir)) {
			best = h
		}
	}
	if best == nil {
		return nil, ""
	}
	rel, _ := below(best.dir, abs)
	return best, rel
}
