//go:build linux

package cache

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity is what tells one file from another at the same path, and
// one version of it from the next: device, inode, size, mode,
// modification and change times.
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%d %v %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
	}
	return fmt.Sprintf("%d %d %d %v %d %d.%d", st.Dev, st.Ino, fi.Size(), fi.Mode(), fi.ModTime().UnixNano(), st.Ctim.Sec, st.Ctim.Nsec)
}
