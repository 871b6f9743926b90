//go:build unix

package fifotest

import (
	"io/fs"
	"syscall"
)

func mkfifo(path string) error {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		return &fs.PathError{Op: "mkfifo", Path: path, Err: err}
	}
	return nil
}
