package lock

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// maxProbe bounds what Held reads. A lock file this package writes is about
// a hundred bytes; a longer one is not ours, so it is respected.
const maxProbe = 4 << 10

// Held reports whether logDir holds a lock file that a run must respect,
// with the same rule as Acquire: false when there is no lock file, or when
// it is stale (written by this package on this host for a process that no
// longer exists), which Acquire takes over with a warning; true for any
// other lock file, an unreadable or oversized one included.
//
// It is for the stop hook's fast path: one open and read of the lock file
// and, for a lock of ours on this host, one kill(pid, 0). The answer may be
// outdated at once; Acquire has the last word.
func Held(logDir string) bool {
	// probeFlags: no FIFO hangs the hook, no symbolic link is followed.
	f, err := os.OpenFile(Path(logDir), os.O_RDONLY|probeFlags, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No lock, or no directory that could hold one (the run will then
		// report why the log directory is unusable).
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, maxProbe+1))
	if err != nil || len(content) > maxProbe {
		return true
	}
	host, _ := os.Hostname() // as Acquire: no host name, nothing is stale
	_, stale := staleOwner(content, host)
	return !stale
}
