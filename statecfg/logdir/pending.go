package logdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
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
// outside root, else in /tmp (TMPDIR may point into the project, which a
// check reads). An error when neither can be made: the caller then writes
// its logs in place.
func MakePending(root, pattern string) (string, error) {
	var errs []error
	for _, parent := range []string{os.TempDir(), "/tmp"} {
		if inside(root, parent) {
			errs = append(errs, fmt.Errorf("%s lies inside the project", parent))
			continue
		}
		dir, err := os.MkdirTemp(parent, pattern)
		if err == nil {
			return dir, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("make a directory for pending logs: %w", errors.Join(errs...))
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
	fi, err := os.Lstat(path)
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
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if os.Link(from, path) == nil {
			return noted(path)
		}
	} else if os.Rename(from, path) == nil {
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
