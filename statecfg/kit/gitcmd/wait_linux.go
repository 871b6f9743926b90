package gitcmd

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
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
			// The system call tells on any kernel (wchan names differ
			// between kernels, and some show none): a task still in an
			// open of a FIFO at a check waits for its other end.
			if p := openedPath(pid, dir); p != "" {
				if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
					return &WaitError{Path: p, Kind: fsread.Kind(st.Mode())}
				}
			}
			if waitsOnFIFO(dir) {
				return &WaitError{}
			}
		}
		if e := heldDevice(pid); e != nil {
			return e
		}
	}
	return nil
}

// heldDevice is the first device or named FIFO git's process pid holds open
// among the files it opened itself (descriptors from 3 on: 0 to 2 are
// what its caller gave it), other than /dev/null and a terminal, named
// by the link to it in the repository the process works in when one is
// found (deviceLink); nil when it holds none. Git reads its files to
// their end: one left open until the watch looks is a read without end.
func heldDevice(pid string) *WaitError {
	if !isGit(pid) {
		return nil // a hook or a filter git started may keep what it likes open
	}
	fds, err := os.ReadDir(filepath.Join("/proc", pid, "fd"))
	if err != nil {
		return nil
	}
	for _, fd := range fds {
		if n, err := strconv.Atoi(fd.Name()); err != nil || n < 3 {
			continue
		}
		link := filepath.Join("/proc", pid, "fd", fd.Name())
		target, err := os.Readlink(link)
		if err != nil || !filepath.IsAbs(target) || harmlessDevice(target) {
			continue // pipe:[...], socket:[...], anon_inode:...
		}
		st, err := os.Stat(link)
		if err != nil || st.Mode()&(os.ModeDevice|os.ModeNamedPipe) == 0 {
			continue
		}
		return &WaitError{Path: deviceLink(pid, target, st), Kind: fsread.Kind(st.Mode()), Device: target}
	}
	return nil
}

// isGit reports whether process pid is git itself or one of its own
// programs (git-remote-https, git-upload-pack...).
func isGit(pid string) bool {
	comm, err := os.ReadFile(filepath.Join("/proc", pid, "comm"))
	name := strings.TrimSpace(string(comm))
	return err == nil && (name == "git" || strings.HasPrefix(name, "git-"))
}

// harmlessDevice reports whether git may hold path open: /dev/null and
// the terminals (a prompt for credentials).
func harmlessDevice(path string) bool {
	return path == "/dev/null" || path == "/dev/tty" || path == "/dev/console" ||
		strings.HasPrefix(path, "/dev/pts/")
}

// maxLinkWalk bounds the entries deviceLink looks at.
const maxLinkWalk = 20000

// deviceLink is the path of a symbolic link to the file st describes
// (the device at target) in the git directory of the repository process
// pid works in (git works at the top of the work tree), or among the work
// tree's top entries; target itself when none is found. The walk skips
// objects/ and stops after maxLinkWalk entries.
func deviceLink(pid, target string, st os.FileInfo) string {
	cwd, err := os.Readlink(filepath.Join("/proc", pid, "cwd"))
	if err != nil || !filepath.IsAbs(cwd) {
		return target
	}
	var roots []string
	if d, ok := gitdir.Find(cwd); ok {
		roots = append(roots, d.GitDir)
		if d.CommonDir != d.GitDir {
			roots = append(roots, d.CommonDir)
		}
	}
	seen := 0
	for _, r := range roots {
		found := ""
		_ = filepath.WalkDir(r, func(p string, e fs.DirEntry, err error) error {
			if seen++; err != nil || seen > maxLinkWalk {
				return filepath.SkipAll
			}
			if e.IsDir() && p == filepath.Join(r, "objects") {
				return filepath.SkipDir
			}
			if linksTo(p, e, st) {
				found = p
				return filepath.SkipAll
			}
			return nil
		})
		if found != "" {
			return found
		}
	}
	if es, err := os.ReadDir(cwd); err == nil {
		for _, e := range es {
			if p := filepath.Join(cwd, e.Name()); linksTo(p, e, st) {
				return p
			}
		}
	}
	return target
}

// linksTo reports whether the entry e at p is a symbolic link to the
// file st describes.
func linksTo(p string, e fs.DirEntry, st os.FileInfo) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	lt, err := os.Stat(p)
	return err == nil && os.SameFile(lt, st)
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
