package logdir

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

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Pending logs: a log a command writes while it runs (a check's stdout
// and stderr) is written in a directory outside the project's work tree
// (OpenPending), and moved to its place in the log directory once the
// command has ended (Install). A command that reads the work tree (`grep
// -r .` with the log directory inside it) so never reads the output it is
// writing, nor the log's header that names it: it sees the tree as the
// agent left it.

// MakePending makes a fresh directory for pending logs outside the
// project at root: in the system's temporary directory when that lies
// outside root's work tree, else in /tmp (TMPDIR may point into the project, which a
// check reads). Its name is "agent-gauntlet-<kind>-<project>-" and a
// random tail, <project> naming root (pendingPrefix), so that the next run
// of the project removes what a run killed outright left (SweepPending).
// An error when neither can be made: the caller then writes its logs in
// place.
func MakePending(root, kind string) (string, error) {
	var errs []error
	for _, parent := range pendingParents(root) {
		dir, err := os.MkdirTemp(parent, pendingPrefix(root, kind))
		if err == nil {
			return dir, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s and /tmp lie inside the project", os.TempDir()))
	}
	return "", fmt.Errorf("make a directory for pending logs: %w", errors.Join(errs...))
}

// SweepPending removes the pending directories of the project at root
// that no run uses any more: called with the project's run lock held, so
// every one left is a run's that was killed outright (a run removes its
// own as it ends). Only directories of the name MakePending gives are
// removed, never through a link. It returns how many.
func SweepPending(root string) int {
	n := 0
	for _, parent := range pendingParents(root) {
		matches, _ := filepath.Glob(filepath.Join(parent, "agent-gauntlet-*-"+projectTag(root)+"-*"))
		for _, m := range matches {
			if fi, err := os.Lstat(m); err != nil || !fi.IsDir() {
				continue
			}
			if os.RemoveAll(m) == nil {
				n++
			}
		}
	}
	return n
}

// pendingParents are the directories pending logs may be made in for the
// project at root: the system's temporary directory and /tmp, those
// outside the work tree root lies in (a check of a project in a
// subdirectory may read the whole work tree, and the result cache keys it
// then), each once.
func pendingParents(root string) []string {
	top := place.NearestTop(root)
	var out []string
	for _, parent := range []string{os.TempDir(), "/tmp"} {
		if inside(root, parent) || inside(top, parent) || slices.Contains(out, parent) {
			continue
		}
		out = append(out, parent)
	}
	return out
}

// pendingPrefix is the name MakePending gives, before its random tail, to
// a pending directory of kind for the project at root.
func pendingPrefix(root, kind string) string {
	return "agent-gauntlet-" + kind + "-" + projectTag(root) + "-"
}

// projectTag names the project at root in pending directories' names: a
// short hash of its absolute path.
func projectTag(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:6])
}

// inside reports whether dir is root or below it, links resolved where
// they can be.
func inside(root, dir string) bool {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(root), resolve(dir))
	return err == nil && (rel == "." || rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// Vacant reports whether a log may be put at path later (Install): nothing
// is there, or a regular file with no other hard links that the gauntlet
// wrote (Owned); else the error OpenLog would give, naming what is there.
func Vacant(path string) error {
	fi, err := lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "open", Path: path, Err: &fsread.NotRegularError{Mode: fi.Mode(), Want: "a regular file"}}
	case hardLinks(nil, fi) > 1:
		return &fs.PathError{Op: "open", Path: path, Err: errHardLinked}
	case !Owned(path):
		return &fs.PathError{Op: "open", Path: path, Err: errNotWritten}
	}
	return nil
}

// OpenPending creates the pending log named name in dir, a fresh directory
// of the run outside the work tree: exclusively, never through a link.
// It is open for reading and appending, as OpenLog's.
func OpenPending(dir, name string) (*os.File, error) {
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create pending log: %w", err)
	}
	return f, nil
}

// Install moves the finished pending log at from to path in a log
// directory, and records it as written (Note). Nothing is written over but
// a file the gauntlet wrote (Vacant, asked again): a link to from is made
// where nothing is (so a file that appeared since stays), or from is
// renamed over the gauntlet's own file; where neither can be done (another
// file system) its content is copied through OpenLog. from is gone
// afterwards, whatever the outcome.
func Install(from, path string) error {
	defer os.Remove(from)
	if err := Vacant(path); err != nil {
		return err
	}
	if _, err := lstat(path); errors.Is(err, fs.ErrNotExist) {
		if os.Link(from, owned.Via(path)) == nil {
			return noted(path)
		}
	} else if os.Rename(from, owned.Via(path)) == nil {
		return noted(path)
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := OpenLog(path, true)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return noted(path)
}

// noted records the installed log at path (Note); the record failing to
// note it only leaves it in place, as for every log.
func noted(path string) error {
	_ = Note(path, false)
	return nil
}
