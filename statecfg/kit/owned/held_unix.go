//go:build unix

package owned

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// openChain opens base, then each of parts below it with O_NOFOLLOW:
// the directory at the end, reached through no link.
func openChain(base string, parts []string) (*os.File, error) {
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fserr.Wrap("open", base, err)
	}
	cur := base
	for _, p := range parts {
		cur = filepath.Join(cur, p)
		next, err := openDirAt(fd, p)
		unix.Close(fd)
		if err != nil {
			return nil, refusal(cur, err)
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), cur), nil
}

// openDirAt opens the directory name of dirfd, never through a link.
func openDirAt(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// refusal is the error of opening the component at path: a
// *RefusedError naming what it is when it is no directory.
func refusal(path string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.IsDir() {
			return &RefusedError{Path: path, Kind: fsread.Kind(fi.Mode()), Want: wantDir}
		}
	}
	return fserr.Wrap("open", path, err)
}

// viaOf is the path the system resolves from the open directory f, when
// it does (Linux's /proc/self/fd), else "".
func viaOf(f *os.File) string {
	p := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	held, err := f.Stat()
	if err != nil || !os.SameFile(fi, held) {
		return ""
	}
	return p
}

// goneVia is the path Via gives below h once it is no longer at its name:
// below /dev/null, where no file or directory can be made or found.
func goneVia(h *hold) string { return "/dev/null/agent-gauntlet-held-" + strconv.Itoa(int(h.f.Fd())) }

// openBelow opens, for a child process, the directory f and then each of
// dirs below it that exists, through no link: the last one opened, and
// how many of dirs that is. A component that is a link or no directory is
// an error; the first one missing ends the walk (the child makes it).
func openBelow(f *os.File, dirs []string) (*os.File, int, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	name := f.Name()
	for i, d := range dirs {
		next, err := openDirAt(fd, d)
		if errors.Is(err, unix.ENOENT) {
			return os.NewFile(uintptr(fd), name), i, nil
		}
		unix.Close(fd)
		if err != nil {
			return nil, 0, err
		}
		fd, name = next, filepath.Join(name, d)
	}
	return os.NewFile(uintptr(fd), name), len(dirs), nil
}

// childVia is the path a child process resolves from its n-th extra file
// (exec.Cmd.ExtraFiles: descriptor 3+n), as viaOf is ours.
func childVia(n int) string { return "/proc/self/fd/" + strconv.Itoa(3+n) }
