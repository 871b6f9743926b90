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
// child as an open file (exec.Cmd.ExtraFiles), and the path becomes one
// the child resolves from its own descriptor of it, so that whatever is
// at the directory's name when the child writes, the write lands in the
// directory held. Elsewhere the paths are given as they are (Replaced
// still tells a swap).

// Child routes the paths given to one child process through the
// directories held open; the zero value is ready to use. Close it once
// the child started.
type Child struct {
	files []*os.File
	slot  map[*hold]int
}

// Path is path as the child should be given it: below a held directory,
// through the child's own descriptor of it; below one no longer at its
// name, a path where nothing can be made or found (as Via); any other
// path as it is. A trailing separator is kept.
func (c *Child) Path(path string) string {
	heldMu.Lock()
	defer heldMu.Unlock()
	best, rel := heldBelow(path)
	if best == nil {
		return path
	}
	if strings.HasSuffix(path, string(filepath.Separator)) && rel != "." {
		rel += string(filepath.Separator)
	}
	if !inPlace(best) {
		if via := goneVia(best); via != "" {
			return via + string(filepath.Separator) + rel
		}
		return path
	}
	if best.via == "" {
		return path
	}
	n, ok := c.slot[best]
	if !ok {
		f, err := dupFile(best.f)
		if err != nil {
			return goneVia(best) + string(filepath.Separator) + rel
		}
		if c.slot == nil {
			c.slot = map[*hold]int{}
		}
		n = len(c.files)
		c.files = append(c.files, f)
		c.slot[best] = n
	}
	return childVia(n) + string(filepath.Separator) + rel
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

// Files are the open directories to hand to the child, in the order of
// its descriptors from 3 on (exec.Cmd.ExtraFiles).
func (c *Child) Files() []*os.File { return c.files }

// Close closes the child's copies of the held directories.
func (c *Child) Close() {
	for _, f := range c.files {
		f.Close()
	}
	c.files, c.slot = nil, nil
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
