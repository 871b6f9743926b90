package git

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A symbolic link in the work tree is held in a tree as the path it
// names, but a program that opens it reads what the path leads to. Inside
// the work tree that is another file of the snapshot; outside it (or in a
// git directory, which no snapshot holds) it is not, so the snapshot keeps
// an identity of what every such link leads to (Reach): the path it
// resolves to and the bytes and mode there, or that nothing is there. What
// cannot be held that way (a directory, a device, a FIFO, a file over
// maxReachBytes, a path that cannot be read) makes KeyTree uncertain.

// Bounds of what the links of one snapshot may lead to outside the work
// tree and still be held: the bytes of one file, of all of them, and the
// number of links that lead there.
const (
	maxReachBytes = 16 << 20
	maxReachTotal = 64 << 20
	maxReachLinks = 4096
)

// takeReach sets Reach from the links of the snapshot (links: their
// top-level-relative paths) and those of the repositories inside it, or,
// when a link leads to what cannot be held, clears KeyTree and says why in
// Uncertain.
func (s *TreeSnapshot) takeReach(links []string) {
	s.links, s.Reach, s.Unheld = links, "", ""
	if s.KeyTree == "" {
		return
	}
	reach, why := s.reach()
	if why != "" {
		s.KeyTree, s.Uncertain, s.Unheld = "", why, why
		return
	}
	s.Reach = reach
}

// reach is the identity of what the links of the snapshot lead to outside
// the work tree ("" when none does), or why it cannot be held.
func (s *TreeSnapshot) reach() (string, string) {
	h := sha256.New()
	held := 0
	budget := int64(maxReachTotal)
	for _, p := range s.links {
		if slices.Contains(s.Hidden, p) {
			continue
		}
		id, why := s.linkReach(p, &budget)
		if why != "" {
			return "", why
		}
		if id != "" {
			if held++; held > maxReachLinks {
				return "", fmt.Sprintf("more than %d symbolic links lead out of the work tree", maxReachLinks)
			}
			fmt.Fprintf(h, "%s\x00%s\x00", p, id)
		}
	}
	for _, p := range sortedKeys(s.nested) {
		if r := s.nested[p].Reach; r != "" {
			held++
			fmt.Fprintf(h, "nested %s\x00%s\x00", p, r)
		}
	}
	if held == 0 {
		return "", ""
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// linkReach is the identity of what the link at the top-level-relative
// path p leads to, "" when that is inside the work tree (the snapshot holds
// it), or why it cannot be held; budget is what is left of maxReachTotal.
func (s *TreeSnapshot) linkReach(p string, budget *int64) (id, why string) {
	abs := filepath.Join(s.disk.top, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		// Gone or no longer a link since git read it: the snapshot is
		// already not the work tree, which Changed tells.
		return "", ""
	}
	resolved, err := filepath.EvalSymlinks(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Dangling: a file made where it points is a change.
		return "missing", ""
	case err != nil && isLoop(abs):
		return "loop", ""
	case err != nil:
		return "", fmt.Sprintf("%s is a symbolic link that cannot be followed: %v", p, err)
	}
	if s.holdsPath(resolved) {
		return "", ""
	}
	return readReach(p, resolved, budget)
}

// isLoop reports whether opening abs fails for too many levels of links.
func isLoop(abs string) bool {
	_, err := os.Stat(abs)
	return errors.Is(err, syscall.ELOOP)
}

// holdsPath reports whether the resolved absolute path is a path of the work
// tree the snapshot holds: under its top level, in no git directory and
// not in what the snapshot leaves out (the log directory).
func (s *TreeSnapshot) holdsPath(resolved string) bool {
	rel, ok := under(s.disk.top, resolved)
	if !ok || slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), ".git") {
		return false
	}
	for _, l := range s.left {
		if _, in := under(l, resolved); in {
			return false
		}
	}
	return true
}

// under reports whether the resolved absolute path is dir or below it (dir
// with its links resolved), and where.
func under(dir, resolved string) (string, bool) {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		d = filepath.Clean(dir)
	}
	rel, err := filepath.Rel(d, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// readReach is the identity of the file at resolved, outside the work
// tree, that the link p leads to: its path, mode and content; or why it
// cannot be held (not a regular file, too large, unreadable). It never
// blocks on a FIFO: it opens without waiting and checks what it opened.
func readReach(p, resolved string, budget *int64) (string, string) {
	f, err := os.OpenFile(resolved, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Sprintf("%s links to %s, which cannot be read: %v", p, resolved, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", fmt.Sprintf("%s links to %s, which cannot be read: %v", p, resolved, err)
	case fi.IsDir():
		return "", fmt.Sprintf("%s links to %s, a directory outside the work tree", p, resolved)
	case !fi.Mode().IsRegular():
		return "", fmt.Sprintf("%s links to %s, which is not a regular file", p, resolved)
	case fi.Size() > maxReachBytes || fi.Size() > *budget:
		return "", fmt.Sprintf("%s links to %s, a file outside the work tree too large to hold", p, resolved)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, min(maxReachBytes, *budget)+1))
	if err != nil {
		return "", fmt.Sprintf("%s links to %s, which cannot be read: %v", p, resolved, err)
	}
	if n > min(maxReachBytes, *budget) {
		return "", fmt.Sprintf("%s links to %s, a file outside the work tree too large to hold", p, resolved)
	}
	*budget -= n
	return fmt.Sprintf("file %s %o %s", resolved, fi.Mode().Perm(), hex.EncodeToString(h.Sum(nil))), ""
}

// sortedKeys are the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// reachMoved reports whether what the snapshot's links lead to outside
// the work tree is no longer what Reach says.
func (s *TreeSnapshot) reachMoved() bool {
	if s.KeyTree == "" {
		return false
	}
	reach, why := s.reach()
	return why != "" || reach != s.Reach
}
