// Package fsread reads the files the gauntlet must not block on: its
// configuration, its execution state, its lock and the directories holding
// them. Only regular files are read, and a named pipe, a device or a socket
// put where one is expected is an error, never a hang: the kind is checked
// before opening and again on the opened file, which is opened with
// O_NONBLOCK (a FIFO swapped in between the two checks opens at once and is
// then refused). Windows has no FIFOs in the file system and opening a file
// there never blocks, so no flag is needed; the checks of the kind stay.
package fsread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// NotRegularError says that a path names something other than a regular
// file (or, for Dir, other than a directory). It is wrapped in an
// *fs.PathError naming the path.
type NotRegularError struct {
	// Mode is the file mode found (its type bits tell the kind).
	Mode fs.FileMode
	// Want is what was expected: "a regular file" or "a directory".
	Want string
}

// Error says what the path is and what it should have been:
// "is a named pipe (FIFO), not a regular file".
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("is %s, not %s", Kind(e.Mode), e.Want)
}

// ErrDanglingLink is wrapped by the error of a path that is a symbolic
// link to nothing.
var ErrDanglingLink = errors.New("is a symbolic link to a missing file")

// TooLargeError says that a file holds more than the reader's limit.
type TooLargeError struct {
	// Limit is the largest size read, in bytes.
	Limit int64
}

// Error names the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("is larger than %s", byteSize(e.Limit))
}

// Kind names the kind of file a mode describes ("a directory", "a named
// pipe (FIFO)", ...), for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an unknown kind of file"
}

const (
	wantFile = "a regular file"
	wantDir  = "a directory"
)

// File returns the content of the regular file at path (symbolic links are
// followed), at most limit bytes. A missing file gives an error matching
// fs.ErrNotExist; a dangling symbolic link one wrapping ErrDanglingLink;
// anything but a regular file a *NotRegularError; a longer file a
// *TooLargeError. Every error is an *fs.PathError naming path.
func File(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	}
	return data, nil
}

// Open opens the regular file at path for reading (symbolic links are
// followed), for a caller that reads it its own way (a tail, a stream).
// Errors are as for File.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, missing(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode(), wantFile)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, missing(path, err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, notRegular(path, fi.Mode(), wantFile)
	}
	return f, nil
}

// Dir lists the directory at path (symbolic links are followed), sorted by
// name, as os.ReadDir does, but anything other than a directory (a FIFO
// included) is a *NotRegularError rather than a hang. Errors are as for
// File.
func Dir(path string) ([]fs.DirEntry, error) {
	f, err := openDir(path)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			if fi, serr := os.Stat(path); serr == nil {
				return nil, notRegular(path, fi.Mode(), wantDir)
			}
		}
		return nil, missing(path, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// missing turns a not-found error for a path that is a dangling symbolic
// link into one wrapping ErrDanglingLink; other errors are kept.
func missing(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "read", Path: path, Err: ErrDanglingLink}
		}
	}
	return err
}

func notRegular(path string, m fs.FileMode, want string) error {
	return &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{Mode: m, Want: want}}
}

// byteSize renders n bytes in the largest whole binary unit.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
