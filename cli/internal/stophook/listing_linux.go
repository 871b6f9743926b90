package stophook

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// statFile is the statOf the path p (not followed if a link), and whether
// its times are older than before; false too where a stat cannot be told.
func statFile(p string, before time.Time) (statOf, bool) {
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
	return statOf(fmt.Sprintf("%d:%d:%o:%d:%d:%d", st.Dev, st.Ino, st.Mode, st.Size, m.UnixNano(), c.UnixNano())), old
}
