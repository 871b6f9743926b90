//go:build windows

package fsread

import "os"

// openFlags are Open's extra open flags: none on Windows, where opening a
// file never blocks (named pipes live outside the file system) and there
// is no controlling terminal to acquire.
const openFlags = 0

// openDir opens the directory at path for listing. Windows has no
// O_DIRECTORY, so the opened file is checked instead: anything but a
// directory is closed and is a *NotRegularError, the error Dir gives on
// Unix when O_DIRECTORY fails.
func openDir(path string) (*os.File, error) {
	f, err := os.Open(path)
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
		return nil, notRegular(path, fi.Mode(), wantDir)
	}
	return f, nil
}
