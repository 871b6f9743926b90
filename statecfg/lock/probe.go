package lock

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// maxProbe bounds what Held reads. A lock file this package writes is about
// a hundred bytes; a longer one is not ours, so it is respected.
const maxProbe = 4 << 10

// Held is Inspect(logDir, 0).Held.
func Held(logDir string) bool { return Inspect(logDir, 0).Held }

// Info is what Inspect found.
type Info struct {
	// Exists reports a lock file; Held one that a run must respect.
	Exists, Held bool
	// Path is the lock file.
	Path string
	// TakenAt is when the lock was taken, zero when unknown: the holder's
	// start for a lock of ours, else the file's modification time.
	TakenAt time.Time
	// PID and Host name the holder when the lock is ours (zero otherwise:
	// an empty file, the TypeScript tool's plain pid).
	PID  int
	Host string
}

// Message says which lock holds, and since when: the detail of the stop
// hook's lock_exists answer.
func (i Info) Message() string {
	return (&HeldError{Path: i.Path, TakenAt: i.TakenAt}).Error()
}

// Inspect tells whether logDir holds a lock file that a run must respect,
// with the same rules as AcquireWithin for runs lasting at most maxAge (0:
// unbounded): not held when there is no lock file, or when it is stale,
// which AcquireWithin takes over with a warning; held for any other lock
// file, an unreadable or oversized one included.
//
// It is for the stop hook's fast path: one open and read of the lock file
// and, for a lock of ours on this host, one kill(pid, 0). The answer may be
// outdated at once; Acquire has the last word.
func Inspect(logDir string, maxAge time.Duration) Info {
	info := Info{Path: Path(logDir)}
	if abs, err := filepath.Abs(info.Path); err == nil {
		info.Path = abs
	}
	info.Exists, info.Held = probe(logDir, maxAge, &info)
	return info
}

// probe is Inspect's answer: whether a lock file exists, whether it is
// held, and (into info) when it was taken and by whom, when known.
func probe(logDir string, maxAge time.Duration, info *Info) (exists, held bool) {
	// probeFlags: no FIFO hangs the hook, no symbolic link is followed.
	f, err := os.OpenFile(Path(logDir), os.O_RDONLY|probeFlags, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No lock, or no directory that could hold one (the run will then
		// report why the log directory is unusable).
		return false, false
	}
	if err != nil {
		return true, true
	}
	defer f.Close()
	var mod time.Time
	if fi, err := f.Stat(); err == nil {
		mod = fi.ModTime()
		info.TakenAt = mod
	}
	content, err := io.ReadAll(io.LimitReader(f, maxProbe+1))
	if err != nil || len(content) > maxProbe {
		return true, true
	}
	host, _ := os.Hostname() // as Acquire: no host name, nothing of ours is stale
	v := judge(content, mod, time.Now(), host, maxAge)
	info.TakenAt, info.PID, info.Host = v.takenAt, v.pid, v.host
	return true, !v.stale
}
