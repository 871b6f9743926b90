package run

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// oddPaths are the changed paths (files, relative to root) no gate can
// judge, each with what it is (see notFiles), in the order of files: what
// oddPathsEach finds, at less cost. A stop with nothing new still looks at
// every changed path (10,000 of them cost as much as the snapshot's `git
// add -A`), so each directory is opened once (O_PATH: search permission
// is all it needs, as for a path looked up through it) and each name
// looked at through it with fstatat and, for a regular file, a raw
// openat and close: no path walk from the root, no poller registration
// and no finalizer per file.
func oddPaths(root string, files []string) []string {
	var found []string
	lookAt(root, files, func(i int, _ *unix.Stat_t, what string) {
		if what != "" {
			found = append(found, oddPath(files[i], what))
		}
	})
	return found
}

// lookAt looks at each of files (relative to root) in turn and hands seen
// its position in files, its stat and what it is ("" for what a gate can judge), skipping the
// ones that cannot be looked at (deleted, or below what is not a
// directory).
func lookAt(root string, files []string, seen func(i int, st *unix.Stat_t, what string)) {
	d := dirLook{fd: -1}
	defer d.close()
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		dir, name := filepath.Split(p)
		if !d.open(dir) {
			continue
		}
		var st unix.Stat_t
		if retry(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }) != nil {
			continue
		}
		seen(i, &st, d.notAFile(name, st.Mode))
	}
}

// dirLook is the directory open for looking at names in it: path, and
// its descriptor fd (-1 when it could not be opened); looked is false
// before the first.
type dirLook struct {
	path   string
	fd     int
	looked bool
}

// open makes dir the directory looked in, reporting whether it could be
// opened (a path below a missing directory, or one that is not a
// directory, cannot).
func (d *dirLook) open(dir string) bool {
	if d.looked && dir == d.path {
		return d.fd >= 0
	}
	d.close()
	d.path, d.looked = dir, true
	fd, err := retryFD(func() (int, error) {
		return unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return false
	}
	d.fd = fd
	return true
}

// close closes the directory's descriptor.
func (d *dirLook) close() {
	if d.fd >= 0 {
		_ = unix.Close(d.fd)
	}
	d.fd = -1
}

// notAFile is notAFile for name in the directory, whose stat's mode is
// mode.
func (d *dirLook) notAFile(name string, mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFREG:
		// Non-blocking: should a FIFO take the file's place since the
		// stat, opening it does not wait for a writer.
		fd, err := retryFD(func() (int, error) {
			return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			return "a file that cannot be read"
		}
		_ = unix.Close(fd)
		return ""
	case unix.S_IFDIR, unix.S_IFLNK:
		return ""
	}
	return "not a file"
}

// retryFD is retry for an op that opens a descriptor.
func retryFD(op func() (int, error)) (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = op()
		return err
	})
	return fd, err
}

// retry calls op again while it is interrupted by a signal.
func retry(op func() error) error {
	for {
		if err := op(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
