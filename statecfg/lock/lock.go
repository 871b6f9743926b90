// Package lock is the run lock: the .gauntlet-run.lock file in the log
// directory that keeps two gauntlet runs of one project apart.
//
// The lock is created with O_EXCL and holds JSON naming its owner (pid,
// host, start time, and the deadline of its run when the run has one). A
// lock that no live run can hold is stale and is taken over, with a
// warning: ours (our JSON, our host) whose process is gone, or whose
// process id now belongs to a process that started after the lock was
// taken (the id was reused; see processStart for the OSes that tell);
// ours whose run's deadline has passed; and any lock, of any host or tool, older than
// the longest a run may last (Bounds.MaxAge, which the caller derives from
// the configured timeouts). Any other existing lock file, including an
// empty one or the TypeScript tool's plain pid, is respected.
package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// File is the lock's file name inside the log directory.
const File = ".gauntlet-run.lock"

// maxAttempts bounds the create / inspect / take over loop of Acquire.
const maxAttempts = 5

// owner is the content of a lock file we write.
type owner struct {
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	StartedAt time.Time `json:"started_at"`
	// Deadline is when the holder's run is certain to have ended (its
	// context's deadline, or its start plus the longest run of its
	// configuration), when it has one.
	Deadline *time.Time `json:"deadline,omitempty"`
}

// Bounds say how long runs last, for Acquire's staleness rules and the
// lock it writes. The zero value knows no bound.
type Bounds struct {
	// MaxAge is the longest any run of the project can hold the lock (0:
	// unbounded, as when a gate has no timeout): an older lock, whoever
	// wrote it, is stale.
	MaxAge time.Duration
	// Deadline, when set, is when the run taking the lock is certain to
	// have ended; it is written into the lock, which is stale after it.
	Deadline time.Time
}

// Lock is a held run lock.
type Lock struct {
	// Path is the absolute path of the lock file.
	Path string
	// Warning is set when a stale lock was taken over; it names the dead
	// process. The caller prints it.
	Warning string

	content []byte
	mu      sync.Mutex
	done    bool
}

// HeldError is returned by Acquire when another run holds the lock (or a
// lock file that is not provably stale exists).
type HeldError struct {
	// Path is the absolute path of the lock file.
	Path string
	// TakenAt is when the lock was taken (its start time, else its file's
	// modification time); zero when unknown.
	TakenAt time.Time
}

// Error says a run is in progress, since when, and how to clear a leftover
// lock.
func (e *HeldError) Error() string {
	return fmt.Sprintf("a gauntlet run is already in progress (lock file: %s%s); if no run is in progress, remove that file",
		e.Path, ageText(e.TakenAt))
}

// ageText is ", taken <age> ago" for a known time, "" otherwise.
func ageText(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return ", taken " + max(time.Since(at), 0).Round(time.Second).String() + " ago"
}

// Path returns the lock file of logDir.
func Path(logDir string) string { return filepath.Join(logDir, File) }

// Exists reports whether logDir holds a lock file, held or stale (one
// stat). The stop hook asks Held, which tells a stale lock apart.
func Exists(logDir string) bool {
	_, err := os.Lstat(Path(logDir))
	return err == nil
}

// Acquire is AcquireWithin without bounds: only a lock of ours on this host
// whose process is gone, or whose deadline passed, is stale.
func Acquire(logDir string) (*Lock, error) { return AcquireWithin(logDir, Bounds{}) }

// AcquireWithin takes the run lock of logDir, creating logDir if needed.
// When the lock file exists and is stale (see the package doc; b.MaxAge
// is the age bound) it is taken over and Lock.Warning says so; two
// processes taking over the same stale lock cannot both win. Any other
// existing lock file gives a *HeldError. The lock written carries
// b.Deadline.
func AcquireWithin(logDir string, b Bounds) (*Lock, error) {
	dir, err := filepath.Abs(logDir)
	if err != nil {
		return nil, fmt.Errorf("resolve log directory %s: %w", logDir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fserr.Wrap("create log directory", dir, err)
	}
	path := Path(dir)
	host, _ := os.Hostname()
	me := owner{PID: os.Getpid(), Host: host, StartedAt: time.Now().UTC()}
	if !b.Deadline.IsZero() {
		d := b.Deadline.UTC()
		me.Deadline = &d
	}
	content, err := json.Marshal(me)
	if err != nil {
		return nil, fmt.Errorf("encode lock: %w", err)
	}
	content = append(content, '\n')
	for range maxAttempts {
		err := createExclusive(path, content)
		if err == nil {
			return &Lock{Path: path, content: content}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		existing, err := readLock(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile: try again
		}
		if errors.Is(err, errForeign) {
			return nil, &HeldError{Path: path}
		}
		if err != nil {
			return nil, fmt.Errorf("read lock file %s: %w", path, fserr.Pathless(err))
		}
		v := judge(existing, modTime(path), time.Now(), host, b.MaxAge)
		if !v.stale {
			return nil, &HeldError{Path: path, TakenAt: v.takenAt}
		}
		took, err := takeOver(dir, path, existing, content)
		if err != nil {
			return nil, err
		}
		if took {
			return &Lock{Path: path, Warning: v.warning(path), content: content}, nil
		}
	}
	return nil, &HeldError{Path: path}
}

// createExclusive creates path with content, failing if it exists.
func createExclusive(path string, content []byte) error {
	f, err := os.OpenFile(owned.Via(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("create lock file %s: %w", path, fserr.Pathless(err))
	}
	_, werr := f.Write(content)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(owned.Via(path))
		return fserr.Wrap("write lock file", path, werr)
	}
	return nil
}

// verdict is what judge found out about an existing lock.
type verdict struct {
	stale bool
	// why is the rule that made it stale: staleDead, staleDeadline or
	// staleAge.
	why int
	// pid and host are the owner's, when the lock is ours.
	pid  int
	host string
	// takenAt is when the lock was taken (zero: unknown); maxAge the bound
	// its age exceeded (staleAge).
	takenAt time.Time
	maxAge  time.Duration
}

// The rules that make a lock stale.
const (
	staleDead = iota + 1
	staleReused
	staleDeadline
	staleAge
)

// reuseTolerance is how much later than the lock's start time its process
// may seem to have started and still be its holder: the holder writes the
// lock after it started, but the start time of a process is known to a
// second at best (Linux's boot time is whole seconds).
const reuseTolerance = 2 * time.Second

// startedAfter reports whether process pid started after the time at
// (beyond reuseTolerance): then it is not the process that took a lock at
// that time, its pid was reused. false when the OS does not tell.
func startedAfter(pid int, at time.Time) bool {
	start, ok := processStart(pid)
	return ok && start.After(at.Add(reuseTolerance))
}

// warning says which stale lock at path was taken over, and why.
func (v verdict) warning(path string) string {
	switch v.why {
	case staleDead:
		return fmt.Sprintf("took over the stale lock file %s of process %d, which is no longer running", path, v.pid)
	case staleReused:
		return fmt.Sprintf("took over the stale lock file %s of process %d: that process id now belongs to a process started after the lock was taken%s",
			path, v.pid, ageText(v.takenAt))
	case staleDeadline:
		return fmt.Sprintf("took over the stale lock file %s of process %d on %s%s: the deadline of its run has passed",
			path, v.pid, v.host, ageText(v.takenAt))
	}
	return fmt.Sprintf("took over the stale lock file %s%s: no run lasts longer than %s (the longest possible run of this configuration)",
		path, ageText(v.takenAt), v.maxAge.Round(time.Second))
}

// judge tells whether the lock content, its file last modified at mod,
// can still be held by a live run, now, on host, with runs lasting at most
// maxAge (0: unbounded). A lock of ours is stale when its process is gone
// or its pid now names a process that started after the lock was taken
// (same host), its deadline has passed, or it is older than maxAge; any
// other lock (the TypeScript tool's pid, an empty file, unknown content)
// only when its file is older than maxAge.
func judge(content []byte, mod, now time.Time, host string, maxAge time.Duration) verdict {
	v := verdict{takenAt: mod}
	o, ours := parseOwner(content)
	if ours {
		v.pid, v.host, v.takenAt = o.PID, o.Host, o.StartedAt
		switch {
		case o.Host == host && processGone(o.PID):
			v.stale, v.why = true, staleDead
			return v
		case o.Host == host && startedAfter(o.PID, o.StartedAt):
			v.stale, v.why = true, staleReused
			return v
		case o.Deadline != nil && now.After(*o.Deadline):
			v.stale, v.why = true, staleDeadline
			return v
		}
	}
	if maxAge > 0 && !v.takenAt.IsZero() && now.Sub(v.takenAt) > maxAge {
		v.stale, v.why, v.maxAge = true, staleAge, maxAge
	}
	return v
}

// parseOwner reads a lock of ours; false for anything else.
func parseOwner(content []byte) (owner, bool) {
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.DisallowUnknownFields()
	var o owner
	if err := dec.Decode(&o); err != nil || dec.More() {
		return owner{}, false
	}
	if o.PID <= 0 || o.Host == "" || o.StartedAt.IsZero() {
		return owner{}, false
	}
	return o, true
}

// modTime is when the file at path was last modified, zero when unknown.
func modTime(path string) time.Time {
	fi, err := os.Lstat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// takeOver replaces the lock file at path, if it still holds stale, with
// content. The new content is written to a temporary file first and renamed
// over the stale one, so the lock file never disappears and no plain
// O_EXCL creator can slip in; takers serialize on an advisory lock of the
// log directory, so only the first one replaces a given stale file.
func takeOver(dir, path string, stale, content []byte) (bool, error) {
	tmp, err := os.CreateTemp(owned.Via(dir), File+".*.tmp")
	if err != nil {
		return false, fmt.Errorf("take over lock file %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer func() { _ = os.Remove(tmpName) }() // gone after a successful rename
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("take over lock file %s: %w", path, err)
	}

	unlock, err := lockDir(dir)
	if err != nil {
		return false, err
	}
	defer unlock()
	cur, err := readLock(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errForeign) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read lock file %s: %w", path, fserr.Pathless(err))
	}
	if !bytes.Equal(cur, stale) {
		return false, nil
	}
	if err := os.Rename(tmpName, owned.Via(path)); err != nil {
		return false, fserr.Wrap("take over lock file", path, err)
	}
	return true, nil
}

// errForeign is readLock's error for a lock file that cannot be ours: a
// symbolic link, a FIFO, a socket or a device, or longer than any lock this
// package writes. (A directory in its place is an error of its own: no run
// could ever hold the lock.)
var errForeign = errors.New("not a lock file written by agent-gauntlet")

// readLock reads the lock file at path without blocking on a FIFO put in
// its place. A missing file gives an error matching fs.ErrNotExist; one
// that cannot be ours, errForeign (as Held respects it).
func readLock(path string) ([]byte, error) {
	path = owned.Via(path)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errForeign
	}
	data, err := fsread.File(path, maxProbe)
	var notRegular *fsread.NotRegularError
	var tooLarge *fsread.TooLargeError
	if (errors.As(err, &notRegular) && !notRegular.Mode.IsDir()) || errors.As(err, &tooLarge) || errors.Is(err, fsread.ErrDanglingLink) {
		return nil, errForeign
	}
	return data, err
}

// Release removes the lock file if it is still the one Acquire wrote. It is
// safe to call more than once, and on a nil Lock.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return nil
	}
	cur, err := readLock(l.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errForeign):
		l.done = true // gone, or not ours any more: leave it
		return nil
	case err != nil:
		return fmt.Errorf("read lock file %s: %w", l.Path, fserr.Pathless(err))
	case !bytes.Equal(cur, l.content):
		l.done = true // not ours any more: leave it
		return nil
	}
	if err := os.Remove(owned.Via(l.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fserr.Wrap("remove lock file", l.Path, err)
	}
	l.done = true
	return nil
}
