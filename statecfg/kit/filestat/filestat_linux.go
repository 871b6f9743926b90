package filestat

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

func of(p string, before time.Time) (ID, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", os.IsNotExist(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	m, c := time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())
	return id(st, m, c, before)
}

func exact(p string, before time.Time) (ID, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return "", errors.Is(err, syscall.ENOENT)
	}
	return id(&st, time.Unix(st.Mtim.Sec, st.Mtim.Nsec), time.Unix(st.Ctim.Sec, st.Ctim.Nsec), before)
}

// id is the ID of st with the times m and c, and whether both are older
// than before.
func id(st *syscall.Stat_t, m, c time.Time, before time.Time) (ID, bool) {
	old := m.Before(before) && c.Before(before)
	return ID(fmt.Sprintf("%d:%d:%o:%d:%d:%d", st.Dev, st.Ino, st.Mode, st.Size, m.UnixNano(), c.UnixNano())), old
}
