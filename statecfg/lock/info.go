package lock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Info describes a lock file, for people: who holds it and since when.
type Info struct {
	// Path is the lock file.
	Path string
	// PID, Host and StartedAt name the holder when the file is one this
	// package wrote (zero otherwise: an empty file, the TypeScript tool's
	// plain pid).
	PID       int
	Host      string
	StartedAt time.Time
	// Since is StartedAt, or the file's modification time when the file
	// does not say.
	Since time.Time
	// Stale is true for a lock Acquire would take over (ours, this host,
	// its process gone).
	Stale bool
}

// Inspect describes the lock file of logDir; nil when there is none. It
// never blocks on a FIFO and never follows a symbolic link.
func Inspect(logDir string) (*Info, error) {
	p := Path(logDir)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return &Info{Path: p}, fmt.Errorf("read lock file %s: %w", p, err)
	}
	defer f.Close()
	info := &Info{Path: p}
	if fi, err := f.Stat(); err == nil {
		info.Since = fi.ModTime()
	}
	content, err := io.ReadAll(io.LimitReader(f, maxProbe+1))
	if err != nil {
		return info, fmt.Errorf("read lock file %s: %w", p, err)
	}
	var o owner
	if len(content) <= maxProbe && json.Unmarshal(content, &o) == nil && o.PID > 0 {
		info.PID, info.Host, info.StartedAt = o.PID, o.Host, o.StartedAt
		if !o.StartedAt.IsZero() {
			info.Since = o.StartedAt
		}
	}
	host, _ := os.Hostname()
	_, info.Stale = staleOwner(content, host)
	return info, nil
}
