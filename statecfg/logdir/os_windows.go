//go:build windows

package logdir

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// openLogFile opens path for OpenLog: for appending, created if missing.
// Windows has no O_NOFOLLOW: a symbolic link found by Lstat fails with
// ELOOP, as on Unix, and FILE_FLAG_OPEN_REPARSE_POINT opens a link swapped
// in after that check as the link itself (Go 1.26 and later honour the
// flag; older ones ignore it, leaving the Lstat check alone), which OpenLog
// then refuses as not a regular file. There is nothing else to guard:
// Windows keeps named pipes outside the file system, so opening never
// blocks, and it has no controlling terminal.
func openLogFile(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.FILE_FLAG_OPEN_REPARSE_POINT, 0o644)
}

// hardLinks is the link count of the open file f (1 when Windows does not
// say). fi carries no link count on Windows; the handle's information
// does.
func hardLinks(f *os.File, _ fs.FileInfo) uint64 {
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return 1
	}
	return uint64(d.NumberOfLinks)
}

// openDirIn opens the directory rel of root for listing. Windows has no
// O_DIRECTORY, so the opened file is checked instead: anything but a
// directory is closed and refused, as O_DIRECTORY refuses it on Unix.
func openDirIn(root *os.Root, rel string) (*os.File, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: rel, Err: &fsread.NotRegularError{Mode: fi.Mode(), Want: "a directory"}}
	}
	return f, nil
}

// devIno are the device and inode numbers of the file fi describes: none
// on Windows (its file index is only read through a handle), where the
// record identifies a file by the digest of its first bytes alone.
func devIno(fs.FileInfo) (uint64, uint64) { return 0, 0 }

// openFileIn opens the file rel of root for reading.
func openFileIn(root *os.Root, rel string) (*os.File, error) { return root.Open(rel) }
