//go:build unix

package logdir

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// openLogFile opens path for OpenLog: for appending and reading back,
// created if missing. O_NOFOLLOW: a symbolic link fails with ELOOP;
// O_NONBLOCK: a FIFO never makes the open wait (OpenLog then refuses it as
// not a regular file); O_NOCTTY: a terminal never becomes the controlling
// one.
func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(owned.Via(path), os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
}

// hardLinks is the link count of the open file f, whose information is fi
// (1 when the platform does not say). Unix reads it from fi, without
// touching f (f.Fd would make f blocking).
func hardLinks(_ *os.File, fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// openDirIn opens the directory rel of root for listing: O_DIRECTORY
// refuses anything else, and O_NONBLOCK never waits on a FIFO.
func openDirIn(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}

// devIno are the device and inode numbers of the file fi describes.
func devIno(fi fs.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// openFileIn opens the file rel of root for reading, never following a
// symbolic link nor waiting on a FIFO.
func openFileIn(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
