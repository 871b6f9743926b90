package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A symbolic link in the work tree is held in a tree as the path it
// names, but a program that opens it reads what the path leads to. When
// that is a file the snapshot holds, the key holds it already; when it is
// not (outside the work tree, in a git directory, in what the snapshot
// leaves out: the log directory, an ignored path), the snapshot keeps an
// identity of what the link leads to (Reach): the path it resolves to and
// the bytes and mode there, or that nothing is there. What cannot be held
// that way (a directory, a device, a FIFO, a file over maxReachBytes, a
// path that cannot be read, a way through /proc or /dev/fd that leads
// somewhere else for each process) makes KeyTree uncertain.

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
func (s *TreeSnapshot) takeReach(ctx context.Context, links []string) error {
	s.links, s.Reach, s.Unheld, s.reaching, s.ends = links, "", "", nil, nil
	if s.KeyTree == "" {
		return nil
	}
	reach, reaching, ends, why, err := s.reach(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		s.KeyTree, s.Uncertain, s.Unheld = "", why, why
		return nil
	}
	s.Reach, s.reaching, s.ends = reach, reaching, ends
	return nil
}

// linkEnd is where a link of the snapshot leads: the resolved absolute
// path, or id when that says it all ("missing", "loop").
type linkEnd struct {
	path, resolved, id string
}

// LinkEnd is where a symbolic link of a snapshot leads, as a program that
// opens it finds it.
type LinkEnd struct {
	// Link is the link's path, relative to the top level.
	Link string
	// Tree is, when KeyTree holds what the link leads to, the path that is
	// there (relative to the top level, "" for the top level itself): the
	// link, followed through every link on the way, leads there.
	Tree string
	// ID identifies, when KeyTree does not hold it, what the link leads
	// to: "missing" (nothing there), "loop", or the path, mode and bytes
	// of a file; "" when Tree says it.
	ID string
}

// LinkEnds are where the links of KeyTree lead, those of the
// repositories inside it included, sorted by Link; none when KeyTree is
// "". A gate that reads only part of the work tree reads, through a link
// in it, what LinkEnds says: KeyTree's entry at Tree, or ID.
func (s *TreeSnapshot) LinkEnds() []LinkEnd { return s.ends }

// ReachLinks are the top-level-relative paths of the links whose targets
// Reach holds (those of the repositories inside included), sorted.
func (s *TreeSnapshot) ReachLinks() []string { return s.reaching }

// reach is the identity of what the links of the snapshot lead to that
// the snapshot does not hold ("" when none does) and those links
// (top-level-relative, sorted), or why it cannot be held.
func (s *TreeSnapshot) reach(ctx context.Context) (string, []string, []LinkEnd, string, error) {
	ends, why := s.linkEnds()
	if why != "" {
		return "", nil, nil, why, nil
	}
	held, err := s.heldEnds(ctx, ends)
	if err != nil {
		return "", nil, nil, "", err
	}
	var reaching []string
	out := make([]LinkEnd, 0, len(ends))
	h := sha256.New()
	n := 0
	budget := int64(maxReachTotal)
	for i, e := range ends {
		id := e.id
		if id == "" && !held[i] {
			if id, why = readReach(e.path, e.resolved, &budget, s.where(e.resolved)); why != "" {
				return "", nil, nil, why, nil
			}
		}
		if id == "" {
			rel, _ := s.treePath(e.resolved)
			out = append(out, LinkEnd{Link: e.path, Tree: rel})
			continue
		}
		out = append(out, LinkEnd{Link: e.path, ID: id})
		if n++; n > maxReachLinks {
			return "", nil, nil, fmt.Sprintf("more than %d symbolic links lead to what the snapshot does not hold", maxReachLinks), nil
		}
		fmt.Fprintf(h, "%s\x00%s\x00", e.path, id)
		reaching = append(reaching, e.path)
	}
	for _, p := range sortedKeys(s.nested) {
		for _, e := range s.nested[p].ends {
			e.Link = p + "/" + e.Link
			if e.ID == "" {
				e.Tree = path.Join(p, e.Tree)
			}
			out = append(out, e)
		}
		if r := s.nested[p].Reach; r != "" {
			n++
			fmt.Fprintf(h, "nested %s\x00%s\x00", p, r)
			for _, l := range s.nested[p].reaching {
				reaching = append(reaching, p+"/"+l)
			}
		}
	}
	slices.SortFunc(out, func(a, b LinkEnd) int { return strings.Compare(a.Link, b.Link) })
	if n == 0 {
		return "", nil, out, "", nil
	}
	slices.Sort(reaching)
	return hex.EncodeToString(h.Sum(nil)), reaching, out, "", nil
}

// linkEnds are where the links of the snapshot lead, the hidden ones and
// those no longer links left out; or why one cannot be followed.
func (s *TreeSnapshot) linkEnds() ([]linkEnd, string) {
	var ends []linkEnd
	for _, p := range s.links {
		if slices.Contains(s.Hidden, p) {
			continue
		}
		abs := filepath.Join(s.disk.top, filepath.FromSlash(p))
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			// Gone or no longer a link since git read it: the snapshot is
			// already not the work tree, which Changed tells.
			continue
		}
		if via := throughProcess(abs); via != "" {
			return nil, fmt.Sprintf("%s is a symbolic link through %s, which leads somewhere else for each process that reads it", p, via)
		}
		resolved, err := filepath.EvalSymlinks(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Dangling: a file made where it points is a change.
			ends = append(ends, linkEnd{path: p, id: "missing"})
		case err != nil && isLoop(abs):
			ends = append(ends, linkEnd{path: p, id: "loop"})
		case err != nil:
			return nil, fmt.Sprintf("%s is a symbolic link that cannot be followed: %v", p, err)
		default:
			ends = append(ends, linkEnd{path: p, resolved: resolved})
		}
	}
	return ends, ""
}

// heldEnds reports, for each of ends, whether the snapshot holds what it
// leads to: a path of the work tree, in no git directory, not in what the
// snapshot leaves out (the log directory) and not ignored (nor, for a
// directory, holding an ignored path). The ignored ones are asked of git
// once, for all the links that lead into the work tree.
func (s *TreeSnapshot) heldEnds(ctx context.Context, ends []linkEnd) ([]bool, error) {
	held := make([]bool, len(ends))
	var rels []string
	for i, e := range ends {
		if e.id != "" {
			continue
		}
		// The top level itself holds the log directory, which the
		// snapshot leaves out.
		if rel, ok := s.treePath(e.resolved); ok && rel != "." {
			held[i] = true
			rels = append(rels, rel)
		}
	}
	ignored, err := s.ignoredUnder(ctx, rels)
	if err != nil {
		return nil, err
	}
	for i, e := range ends {
		if !held[i] {
			continue
		}
		rel, _ := s.treePath(e.resolved)
		for _, ig := range ignored {
			if rel == ig || strings.HasPrefix(rel, ig+"/") || strings.HasPrefix(ig, rel+"/") {
				held[i] = false
				break
			}
		}
	}
	return held, nil
}

// treePath is the top-level-relative path (with slashes) of the resolved
// absolute path when it is under the top level, in no git directory and
// not in what the snapshot leaves out (the log directory).
func (s *TreeSnapshot) treePath(resolved string) (string, bool) {
	rel, ok := under(s.disk.top, resolved)
	if !ok {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if slices.Contains(strings.Split(rel, "/"), ".git") {
		return "", false
	}
	for _, l := range s.left {
		if _, in := under(l, resolved); in {
			return "", false
		}
	}
	return rel, true
}

// ignoredUnder lists the paths, among and under rels (top-level-relative),
// that the snapshot leaves out as ignored (a directory wholly ignored named
// once, without its trailing slash). A repository inside the work tree is
// snapshotted whole (see Retake), so nothing in it is ignored.
func (s *TreeSnapshot) ignoredUnder(ctx context.Context, rels []string) ([]string, error) {
	if len(rels) == 0 || s.depth > 0 {
		return nil, nil
	}
	ignored, err := s.listOthers(ctx, true, rels)
	if err != nil {
		return nil, fmt.Errorf("snapshot: what links lead to: %w", err)
	}
	return ignored, nil
}

// where says where the resolved absolute path is, that the snapshot does
// not hold: outside the work tree, or in a part of it no snapshot holds.
func (s *TreeSnapshot) where(resolved string) string {
	if _, in := under(s.disk.top, resolved); in {
		return "in the work tree that no snapshot holds (ignored, the log directory or a git directory)"
	}
	return "outside the work tree"
}

// throughProcess is the first path on the way from abs to what it leads to
// (each link on the way followed as the kernel follows it) that means
// something else to each process that opens it: one in /proc (/proc/self,
// /proc/thread-self, a process's cwd, root or fd) or in /dev/fd, or ""
// when there is none (or the way cannot be followed, which EvalSymlinks
// then tells). agent-gauntlet's process and a check's reach different
// files through such a path, so no key taken in the one holds what the
// other reads.
func throughProcess(abs string) string {
	done := string(filepath.Separator)
	rest := strings.Split(filepath.Clean(abs), string(filepath.Separator))
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, c)
		if perProcess(next) {
			return next
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if hops++; err != nil || hops > 255 {
			return ""
		}
		if filepath.IsAbs(target) {
			done = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return ""
}

// perProcess reports whether the absolute path p, reached with every link
// on the way followed, is in /proc or /dev/fd, whose entries differ for
// each process that opens them.
func perProcess(p string) bool {
	for _, d := range []string{"/proc", "/dev/fd"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// isLoop reports whether opening abs fails for too many levels of links.
func isLoop(abs string) bool {
	_, err := os.Stat(abs)
	return errors.Is(err, syscall.ELOOP)
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

// readReach is the identity of the file at resolved, where the snapshot
// does not hold it (where says where), that the link p leads to: its path, mode and content; or why it
// cannot be held (not a regular file, too large, unreadable). It never
// blocks on a FIFO: it opens without waiting and checks what it opened.
func readReach(p, resolved string, budget *int64, where string) (string, string) {
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
		return "", fmt.Sprintf("%s links to %s, a directory %s", p, resolved, where)
	case !fi.Mode().IsRegular():
		return "", fmt.Sprintf("%s links to %s, which is not a regular file", p, resolved)
	case fi.Size() > maxReachBytes || fi.Size() > *budget:
		return "", fmt.Sprintf("%s links to %s, a file %s too large to hold", p, resolved, where)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, min(maxReachBytes, *budget)+1))
	if err != nil {
		return "", fmt.Sprintf("%s links to %s, which cannot be read: %v", p, resolved, err)
	}
	if n > min(maxReachBytes, *budget) {
		return "", fmt.Sprintf("%s links to %s, a file %s too large to hold", p, resolved, where)
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

// reachMoved reports whether what the snapshot's links lead to, that it
// does not hold, is no longer what Reach says.
func (s *TreeSnapshot) reachMoved(ctx context.Context) (bool, error) {
	if s.KeyTree == "" {
		return false, nil
	}
	reach, _, ends, why, err := s.reach(ctx)
	if err != nil {
		return false, err
	}
	return why != "" || reach != s.Reach || !slices.Equal(ends, s.ends), nil
}
