package gitcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// fifoWaits are the kernel functions a task sleeps in while its open of a
// FIFO waits for the other end (/proc/<pid>/task/<tid>/wchan).
var fifoWaits = []string{"wait_for_partner", "fifo_open"}

// openCalls are the system calls that open a file by name on this
// architecture: the number and the position of the path among its
// arguments (after a directory descriptor for the *at calls: at > 0).
var openCalls = map[string]map[int]int{
	"amd64":   {2: 0, 257: 1, 437: 1},
	"386":     {5: 0, 295: 1, 437: 1},
	"arm64":   {56: 1, 437: 1},
	"riscv64": {56: 1, 437: 1},
}

// blockedOpen is the first process of group pgid (git, or what it
// started) found waiting to open a FIFO, with the file named when
// /proc shows the call; nil when none waits.
func blockedOpen(pgid int) *WaitError {
	for _, pid := range groupMembers(pgid) {
		tasks, err := os.ReadDir(filepath.Join("/proc", pid, "task"))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			dir := filepath.Join("/proc", pid, "task", t.Name())
			if !waitsOnFIFO(dir) {
				continue
			}
			if p := openedPath(pid, dir); p != "" {
				if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
					return &WaitError{Path: p, Kind: fsread.Kind(st.Mode())}
				}
			}
			if waitsOnFIFO(dir) {
				return &WaitError{}
			}
		}
	}
	return nil
}

// groupMembers lists the processes whose process group is pgid, and
// pgid itself (a caller of Exec that put git in no group of its own).
func groupMembers(pgid int) []string {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	want := strconv.Itoa(pgid)
	var out []string
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", n, "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		// after the name: state, ppid, pgrp
		if f := strings.Fields(string(data[i+1:])); n == want || (len(f) > 2 && f[2] == want) {
			out = append(out, n)
		}
	}
	return out
}

// waitsOnFIFO reports whether the task at dir sleeps in a FIFO's open.
func waitsOnFIFO(dir string) bool {
	w, err := os.ReadFile(filepath.Join(dir, "wchan"))
	if err != nil {
		return false
	}
	for _, f := range fifoWaits {
		if string(w) == f {
			return true
		}
	}
	return false
}

// openedPath is the absolute path the task at dir of process pid is
// opening, read from its system call's arguments and its memory; "" when
// it is in no open call or they cannot be read.
func openedPath(pid, dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "syscall"))
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return ""
	}
	at, ok := openCalls[runtime.GOARCH][nr]
	if !ok || len(f) <= at+1 {
		return ""
	}
	addr, err := strconv.ParseUint(f[at+1], 0, 64)
	if err != nil {
		return ""
	}
	p := readString(pid, addr)
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	base := "cwd"
	if at > 0 {
		fd, err := strconv.ParseUint(f[1], 0, 64)
		if err != nil {
			return ""
		}
		if int32(uint32(fd)) != -100 { // AT_FDCWD
			base = filepath.Join("fd", strconv.Itoa(int(int32(uint32(fd)))))
		}
	}
	d, err := os.Readlink(filepath.Join("/proc", pid, base))
	if err != nil || !filepath.IsAbs(d) {
		return ""
	}
	return filepath.Join(d, p)
}

// readString reads the NUL-terminated string at addr in the memory of
// process pid, at most a path's length (4096 bytes); "" when it cannot.
func readString(pid string, addr uint64) string {
	m, err := os.Open(filepath.Join("/proc", pid, "mem"))
	if err != nil {
		return ""
	}
	defer m.Close()
	const page, max = 4096, 4096
	var s []byte
	for len(s) < max {
		chunk := make([]byte, page-int((addr+uint64(len(s)))%page))
		n, _ := m.ReadAt(chunk, int64(addr)+int64(len(s)))
		if n == 0 {
			return ""
		}
		if i := bytes.IndexByte(chunk[:n], 0); i >= 0 {
			return string(append(s, chunk[:i]...))
		}
		s = append(s, chunk[:n]...)
	}
	return ""
}
