// Package lock is the run lock: the .gauntlet-run.lock file in the log
// directory that keeps two gauntlet runs of one project apart.
//
// The lock is created with O_EXCL and holds JSON naming its owner (pid,
// host, start time). A lock that is ours (our JSON, our host) but whose
// process is gone is stale and is taken over, with a warning; any other
// existing lock file, including an empty one or the TypeScript tool's plain
// pid, is respected.
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
}

// Error says a run is in progress and how to clear a leftover lock.
func (e *HeldError) Error() string {
	return fmt.Sprintf("a gauntlet run is already in progress (lock file: %s); if no run is in progress, remove that file", e.Path)
}

// Path returns the lock file of logDir.
func Path(logDir string) string { return filepath.Join(logDir, File) }

// Exists reports whether logDir holds a lock file, held or stale (one
// stat). The stop hook asks Held, which tells a stale lock apart.
func Exists(logDir string) bool {
	_, err := os.Lstat(Path(logDir))
	return err == nil
}

// Acquire takes the run lock of logDir, creating logDir if needed. When the
// lock file exists and is stale (written by this package on this host for
// a process that no longer exists) it is taken over and Lock.Warning says
// so; two processes taking over the same stale lock cannot both win. Any
// other existing lock file gives a *HeldError.
func Acquire(logDir string) (*Lock, error) {
	dir, err := filepath.Abs(logDir)
	if err != nil {
		return nil, fmt.Errorf("resolve log directory %s: %w", logDir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create log directory %s: %w", dir, err)
	}
	path := Path(dir)
	host, _ := os.Hostname()
	content, err := json.Marshal(owner{PID: os.Getpid(), Host: host, StartedAt: time.Now().UTC()})
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
		existing, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile: try again
		}
		if err != nil {
			return nil, fmt.Errorf("read lock file %s: %w", path, err)
		}
		pid, stale := staleOwner(existing, host)
		if !stale {
			return nil, &HeldError{Path: path}
		}
		took, err := takeOver(dir, path, existing, content)
		if err != nil {
			return nil, err
		}
		if took {
			warning := fmt.Sprintf("took over the stale lock file %s of process %d, which is no longer running", path, pid)
			return &Lock{Path: path, Warning: warning, content: content}, nil
		}
	}
	return nil, &HeldError{Path: path}
}

// createExclusive creates path with content, failing if it exists.
func createExclusive(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("create lock file %s: %w", path, pathless(err))
	}
	_, werr := f.Write(content)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return fmt.Errorf("write lock file %s: %w", path, werr)
	}
	return nil
}

// staleOwner reports whether content is a lock we wrote on host for a
// process that no longer exists, and that process id.
func staleOwner(content []byte, host string) (pid int, stale bool) {
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.DisallowUnknownFields()
	var o owner
	if err := dec.Decode(&o); err != nil || dec.More() {
		return 0, false
	}
	if o.PID <= 0 || o.Host == "" || o.Host != host || o.StartedAt.IsZero() {
		return 0, false
	}
	return o.PID, processGone(o.PID)
}

// takeOver replaces the lock file at path, if it still holds stale, with
// content. The new content is written to a temporary file first and renamed
// over the stale one, so the lock file never disappears and no plain
// O_EXCL creator can slip in; takers serialize on an advisory lock of the
// log directory, so only the first one replaces a given stale file.
func takeOver(dir, path string, stale, content []byte) (bool, error) {
	tmp, err := os.CreateTemp(dir, File+".*.tmp")
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
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read lock file %s: %w", path, err)
	}
	if !bytes.Equal(cur, stale) {
		return false, nil
	}
	if err := os.Rename(tmpName, path); err != nil {
		return false, fmt.Errorf("take over lock file %s: %w", path, err)
	}
	return true, nil
}

// pathless drops the path of an *fs.PathError whose path the caller's
// message already names ("create lock file X: permission denied", not
// "create lock file X: open X: permission denied"); errors.Is still sees
// the cause.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
	cur, err := os.ReadFile(l.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.done = true
		return nil
	case err != nil:
		return fmt.Errorf("read lock file %s: %w", l.Path, err)
	case !bytes.Equal(cur, l.content):
		l.done = true // not ours any more: leave it
		return nil
	}
	if err := os.Remove(l.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove lock file %s: %w", l.Path, err)
	}
	l.done = true
	return nil
}
