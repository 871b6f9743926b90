package filestat

import (
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
	old := m.Before(before) && c.Before(before)
	return ID(fmt.Sprintf("%d:%d:%o:%d:%d:%d", st.Dev, st.Ino, st.Mode, st.Size, m.UnixNano(), c.UnixNano())), old
}
