//go:build unix

package fsread

import (
	"os"
	"syscall"
)

// openFlags are Open's extra open flags. O_NONBLOCK: a FIFO swapped in
// after the check opens at once (and is then refused) instead of waiting
// for a writer; O_NOCTTY: a terminal device never becomes the process's
// controlling terminal.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// openDir opens the directory at path for listing. O_DIRECTORY makes
// anything else fail with ENOTDIR, a FIFO included, without blocking on it
// (O_NONBLOCK).
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_DIRECTORY, 0)
}
