package procgroup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

var pid = os.Getpid()

// AdoptStrays makes this process the child subreaper of everything it
// starts: a descendant whose parent dies (a check's `setsid server &` whose
// shell was killed at its timeout, a daemon's double fork) is reparented
// to this process rather than to init, where KillStrays finds it. Call it
// once, at start.
func AdoptStrays() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl PR_SET_CHILD_SUBREAPER", err)
	}
	return nil
}

// KillStrays kills every child of this process that carries tag (see
// NewTag) in its environment or belongs to the process group or session
// group (a child's, ended and waited for), or, with tag empty, every
// child: the strays a child
// left behind, reparented here by AdoptStrays. Killed strays are reaped;
// their own children are reparented here in turn and killed on the next
// pass, so a whole detached tree goes. Where this process is no
// subreaper, it has no strays to find. A process with no child at all
// (hasChildren) has none either: it reads no /proc file then.
func KillStrays(tag string, group int) {
	for range 64 {
		if !hasChildren() {
			return
		}
		found := false
		for _, child := range children() {
			if !strayOf(child, tag, group) {
				continue
			}
			found = true
			_ = syscall.Kill(child, syscall.SIGKILL)
			var ws syscall.WaitStatus
			for {
				_, err := syscall.Wait4(child, &ws, 0, nil)
				if !errors.Is(err, syscall.EINTR) {
					break
				}
			}
		}
		if !found {
			return
		}
	}
}

// hasChildren tells whether this process has a child, running, stopped
// or a zombie not yet waited for: waitid on every child without waiting
// for one (WNOHANG) or reaping it (WNOWAIT) fails with ECHILD only when
// there is none. Any other answer, an error included, is taken for yes,
// so that children is asked.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT, nil)
	return !errors.Is(err, unix.ECHILD)
}

// strayOf tells whether child carries tag or is in group's process group
// or session; every child is when tag is empty. A child whose environment
// cannot be read (gone, a zombie, another user's) carries no tag, but a
// zombie still tells its group.
func strayOf(child int, tag string, group int) bool {
	if tag == "" {
		return true
	}
	if group > 0 && inGroup(child, group) {
		return true
	}
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "environ"))
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if string(kv) == tag {
			return true
		}
	}
	return false
}

// inGroup tells whether child's process group or session is group (the
// fifth and sixth fields of its stat).
func inGroup(child, group int) bool {
	f := statFields(strconv.Itoa(child))
	g := strconv.Itoa(group)
	return len(f) > 3 && (f[2] == g || f[3] == g)
}

// statFields are the fields of /proc/<p>/stat after the command name in
// parentheses (state, ppid, pgrp, session, ...), nil when unreadable.
func statFields(p string) []string {
	data, err := os.ReadFile(filepath.Join("/proc", p, "stat"))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// children lists the pids whose parent is this process, from every
// thread's children file (a child belongs to the thread that forked it, or
// that it was reparented to), or, on a kernel without those files, from
// the parent pid in every process's stat. The files are opened by name:
// filepath.Glob would list each thread's directory (some fifty entries)
// to find the one file.
func children() []int {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return childrenByStat()
	}
	tids, err := d.Readdirnames(-1)
	d.Close()
	if err != nil || len(tids) == 0 {
		return childrenByStat()
	}
	var out []int
	for _, tid := range tids {
		data, err := os.ReadFile("/proc/self/task/" + tid + "/children")
		if err != nil {
			return childrenByStat()
		}
		for f := range strings.FieldsSeq(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// childrenByStat lists the pids whose stat names this process as parent
// (the fourth field, after the command name in parentheses).
func childrenByStat() []int {
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f := statFields(d.Name()); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}
