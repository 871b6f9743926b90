//go:build darwin || freebsd || netbsd

package baseline

import (
	"io/fs"
	"syscall"
	"time"
)

// statOf is what fs.FileInfo does not say of an entry: when its inode last
// changed (content, mode, links, a rename; a time no program of the user
// can set back), its inode number and its link count. ok is false where
// the system does not tell.
func statOf(info fs.FileInfo) (ctime time.Time, ino, nlink uint64, ok bool) {
	st, isSys := info.Sys().(*syscall.Stat_t)
	if !isSys {
		return time.Time{}, 0, 0, false
	}
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)), uint64(st.Ino), uint64(st.Nlink), true
}
