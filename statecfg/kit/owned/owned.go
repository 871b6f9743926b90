// Package owned creates and checks the paths the gauntlet writes below a
// directory it owns (the project, the log directory) without following a
// symbolic link: every component below the owned directory is looked at
// with lstat, a missing one is created, and one that is a link, or of the
// wrong kind, is refused with a one-line error naming it. The operations
// go through an os.Root opened on the owned directory, so that even a link
// planted between the look and the use cannot lead outside it.
package owned

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// RefusedError is a path the gauntlet would write or remove that is not
// what it makes there: a symbolic link, or a file where it wants a
// directory (or the reverse). Nothing was written through it.
type RefusedError struct {
	// Path is the refused path.
	Path string
	// Kind is what the path is ("a symbolic link", ...).
	Kind string
	// Want is what the gauntlet makes there ("a directory", ...).
	Want string
}

// Error names the path, what it is and what the gauntlet wanted, on one
// line.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to write through %s: it is %s, not %s; move it away or replace it", fserr.Quote(e.Path), e.Kind, e.Want)
}

const (
	wantDir  = "a directory"
	wantFile = "a regular file"
)

// MkdirAll makes rel, a path below the directory root, a directory with
// permission perm, creating each missing component. A component that is
// a symbolic link or not a directory is refused with a *RefusedError and
// nothing is created below it; root itself is the caller's to trust. An
// absolute rel, or one that leaves root, is an error.
func MkdirAll(root, rel string, perm fs.FileMode) error {
	root, rel = reroot(root, rel)
	r, err := os.OpenRoot(Via(root))
	if err != nil {
		return fmt.Errorf("open %s: %w", root, err)
	}
	defer r.Close()
	return mkdirAll(r, root, rel, perm)
}

// mkdirAll is MkdirAll on the open root r of the directory root.
func mkdirAll(r *os.Root, root, rel string, perm fs.FileMode) error {
	parts, err := split(rel)
	if err != nil {
		return err
	}
	cur := ""
	for _, p := range parts {
		cur = filepath.Join(cur, p)
		if err := dirAt(r, root, cur, perm); err != nil {
			return err
		}
	}
	return nil
}

// dirAt makes the single component rel of r a directory, or checks that
// it is one and no link.
func dirAt(r *os.Root, root, rel string, perm fs.FileMode) error {
	full := filepath.Join(root, rel)
	err := r.Mkdir(rel, perm)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fserr.Wrap("create", full, err)
	}
	fi, err := r.Lstat(rel)
	if err != nil {
		return fserr.Wrap("inspect", full, err)
	}
	if !fi.IsDir() {
		return &RefusedError{Path: full, Kind: fsread.Kind(fi.Mode()), Want: wantDir}
	}
	return nil
}

// FileParent prepares path, a file the gauntlet replaces (a temporary
// file renamed over it), for the write: when path is below root, every
// directory between them is made or checked as MkdirAll does; path
// itself must be missing or a regular file, never a link (a link would
// be replaced, or written through by a writer that follows it). root ""
// checks path alone.
func FileParent(root, path string) error {
	if rel, ok := below(root, filepath.Dir(path)); ok && rel != "." {
		if err := MkdirAll(root, rel, 0o755); err != nil {
			return err
		}
	}
	return checkFile(path)
}

// CheckFile refuses path, a file the gauntlet is about to write, before
// anything is written: when a directory between root and it exists as
// anything but a directory (a symbolic link, wherever it leads, dangling
// or not; a file; a named pipe), or path exists as anything but a regular
// file, it returns a *RefusedError naming it. Nothing is created: a
// command that writes several files checks each first, so that a refusal
// leaves the project as it was. root "" checks path alone.
func CheckFile(root, path string) error {
	if err := CheckDir(root, filepath.Dir(path)); err != nil {
		return err
	}
	return checkFile(path)
}

// CheckDir refuses dir, a directory the gauntlet reads, writes into or
// removes files from, when it or a directory between root and it exists
// as anything but a directory (a symbolic link, wherever it leads; a
// file), with a *RefusedError naming it. A missing one is no refusal:
// nothing below it exists either. Nothing is created. dir not below root
// (or root "") is not checked.
func CheckDir(root, dir string) error {
	rel, ok := below(root, dir)
	if !ok || rel == "." {
		return nil
	}
	parts, err := split(rel)
	if err != nil {
		return err
	}
	cur := root
	for _, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(Via(cur))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fserr.Wrap("inspect", cur, err)
		}
		if !fi.IsDir() {
			return &RefusedError{Path: cur, Kind: fsread.Kind(fi.Mode()), Want: wantDir}
		}
	}
	return nil
}

// checkFile refuses path when it exists as anything but a regular file.
func checkFile(path string) error {
	fi, err := os.Lstat(Via(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fserr.Wrap("inspect", path, err)
	}
	if !fi.Mode().IsRegular() {
		return &RefusedError{Path: path, Kind: fsread.Kind(fi.Mode()), Want: wantFile}
	}
	return nil
}

// IsDir reports whether path is a directory itself, not a link to one.
func IsDir(path string) bool {
	fi, err := os.Lstat(Via(path))
	return err == nil && fi.IsDir()
}

// RemoveDir removes path when it is an empty directory, never a link nor
// a file of that name (os.Remove would remove either).
func RemoveDir(path string) error {
	if !IsDir(path) {
		return nil
	}
	parent, err := os.OpenRoot(Via(filepath.Dir(path)))
	if err != nil {
		return err
	}
	defer parent.Close()
	fi, err := parent.Lstat(filepath.Base(path))
	if err != nil || !fi.IsDir() {
		return nil
	}
	return parent.Remove(filepath.Base(path))
}

// reroot is root and rel made relative to the deepest held directory
// (Hold) that is root or lies between root and root/rel, so that the
// walk starts from the directory held, not from its name.
func reroot(root, rel string) (string, string) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root, rel
	}
	full := filepath.Join(abs, rel)
	heldMu.Lock()
	defer heldMu.Unlock()
	best := ""
	for _, h := range helds {
		_, inRoot := below(abs, h.dir)
		_, holds := below(h.dir, full)
		if inRoot && holds && len(h.dir) > len(best) {
			best = h.dir
		}
	}
	if best == "" {
		return root, rel
	}
	r, _ := below(best, full)
	return best, r
}

// below is path relative to root when path is root or below it.
func below(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// split is the components of the relative path rel.
func split(rel string) ([]string, error) {
	rel = filepath.Clean(rel)
	if rel == "." {
		return nil, nil
	}
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is not below the directory it is made in", rel)
	}
	return strings.Split(rel, string(filepath.Separator)), nil
}
