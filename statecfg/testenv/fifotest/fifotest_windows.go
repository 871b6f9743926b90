//go:build windows

package fifotest

import (
	"errors"
	"io/fs"
)

// mkfifo fails: Windows has no FIFOs in the file system.
func mkfifo(path string) error {
	return &fs.PathError{Op: "mkfifo", Path: path, Err: errors.ErrUnsupported}
}
