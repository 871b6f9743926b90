package lock

import (
	"time"

	"golang.org/x/sys/unix"
)

// processStart tells when process pid started: p_starttime of its
// kinfo_proc (sysctl kern.proc.pid.<pid>, no cgo). false when the kernel
// does not say.
func processStart(pid int) (time.Time, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return time.Time{}, false
	}
	tv := kp.Proc.P_starttime
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000), true
}
