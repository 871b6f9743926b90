// Package fserr words file-system errors and names so that each path is
// named once, on one line.
//
// An *fs.PathError already reads "<op> <path>: <cause>"; wrapping it as
// fmt.Errorf("read %s: %w", path, err) gives "read X: read X: is a
// directory". Wrap names the path once, and Pathless drops it where the
// message names the file by other means.
package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"
)

// Wrap returns err worded as "<op> <path>: <cause>". When err is an
// *fs.PathError (or *os.LinkError) about path itself, its own operation and
// path are dropped, so the path appears once; about another path (a parent
// directory MkdirAll could not create), it is kept. errors.Is and
// errors.As still see the cause.
func Wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("%s %s: %w", op, path, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) && (le.New == path || le.Old == path) {
		return fmt.Errorf("%s %s: %w", op, path, le.Err)
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// Pathless returns the cause of an *fs.PathError, for a message that names
// the file itself (".gauntlet/checks/x.yml: cannot read: permission
// denied"); other errors are returned as they are.
func Pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Quote returns a file name or path as it may appear in a one-line
// message: unchanged when it is valid UTF-8 of printable characters, else
// quoted as a Go string, so that no name taken from the disk can break a
// message across lines or forge one.
func Quote(name string) string {
	for _, r := range name {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	return name
}
