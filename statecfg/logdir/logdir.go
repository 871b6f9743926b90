// Package logdir knows the layout of the log directory (default
// gauntlet_logs/): the names of its numbered files (Name: console logs,
// check logs, review slot logs and JSON, with job ids encoded so that no
// two jobs share a file), which names are the gauntlet's own (IsOwn), run
// numbering, pending failure logs (verification mode), the latest console
// log, archiving into previous/ (Clean), and opening a log for writing
// (OpenLog).
//
// Only the files the gauntlet wrote are ever moved or deleted (the record
// of written.go: Note, Start): an entry whose name is not one of its
// formats, which is not a regular file (a symbolic link, a directory, a
// FIFO), or which the record does not hold as written by the gauntlet (a
// person's file, whatever its name), stays where it is, and Clean says
// so. Every operation below the log directory goes through an os.Root, so
// no symbolic link can lead a move or a deletion out of the project.
//
// The execution state (state.File) and the run lock (lock.File) keep their
// own packages; this one only leaves them where they are.
package logdir

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// Names inside the log directory (besides state.File, lock.File and the
// numbered files, see Name).
const (
	// PreviousDir is the archive that Clean moves the logs into.
	PreviousDir = "previous"
	// CommitDir holds the logs of looks at past commits (run -c), numbered
	// in their own space: they stay outside the work tree's lifecycle (its
	// run numbers, retry budget and verification). A passing run's
	// archiving leaves it alone; it moves into previous/ with the execution
	// state (clean, auto-clean).
	CommitDir = "commit"
	// DebugLogFile is the debug log, kept across cleans.
	DebugLogFile = ".debug.log"
	// DebugLogBackupFile is the rotated debug log, kept across cleans.
	DebugLogBackupFile = ".debug.log.1"
	// SessionRefFile is the TypeScript tool's legacy session reference;
	// Clean deletes it (and so does state.Write).
	SessionRefFile = state.LegacySessionRefFile
	// StopHookMarkerFile is the TypeScript tool's stop-hook marker; Clean
	// archives it, as that tool's clean did.
	StopHookMarkerFile = ".stop-hook-active"
	// NoticeFile holds what a stop hook had to tell and no one saw (the
	// client's allow shows no message), for the next session's start hook;
	// Clean leaves it.
	NoticeFile = ".stop-hook-notice"
)

// readRoot lists the regular files at the root of dir (every entry when
// all is set: directories, FIFOs, symbolic links too); a missing dir has
// none. Reading never blocks on a FIFO.
func readRoot(dir string, all bool) ([]string, error) {
	entries, err := fsread.Dir(owned.Via(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fserr.Wrap("read log directory", dir, err)
	}
	var names []string
	for _, e := range entries {
		if all || e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// own lists the numbered files at the root of dir that are the gauntlet's
// own: in its formats (see Name.IsOwn) and, when the record of written
// files knows dir, written by it (a person's console.9.log is not).
func own(dir string) ([]Name, error) {
	names, err := Scan(dir)
	if err != nil {
		return nil, err
	}
	written := readOwnership(dir)
	var root *os.Root
	if written.known && len(names) > 0 {
		if root, err = openRoot(dir); err != nil {
			return nil, fserr.Wrap("open log directory", dir, err)
		}
		defer root.Close()
	}
	kept := names[:0]
	for _, n := range names {
		if n.IsOwn() && (root == nil || written.owns(root, n.String())) {
			kept = append(kept, n)
		}
	}
	return kept, nil
}

// maxCountedRun is the highest run number NextRunNumber numbers past:
// half the range of an int, so that numbering past it (and past the
// names above it) never overflows. No run of the gauntlet reaches it by
// counting; only a name someone gave a file can be above it.
const maxCountedRun = math.MaxInt / 2

// NextRunNumber returns 1 + the highest run number N up to maxCountedRun
// among the numbered names in the gauntlet's formats at the root of dir
// (console, check and review logs, review JSON), whatever is there: its
// own files, and anything else put at such a name (a directory, a FIFO,
// a symbolic link), which the run could not write its logs through; then
// past any such name that holds that number too (one above
// maxCountedRun); 1 for an empty or missing dir. So every name of the
// next run is free, and no name anyone gives a file makes the number
// overflow. A numbered file in no gauntlet format (leading zeros, another
// script's digits) does not count. The retry budget is counted in runs,
// not numbers: a number skipped spends none of it.
func NextRunNumber(dir string) (int, error) {
	files, err := readRoot(dir, true)
	if err != nil {
		return 0, err
	}
	highest := 0
	taken := map[int]bool{}
	for _, f := range files {
		if n, ok := ParseName(f); ok && n.IsOwn() {
			taken[n.Run] = true
			if n.Run <= maxCountedRun {
				highest = max(highest, n.Run)
			}
		}
	}
	next := highest + 1
	for taken[next] {
		next++
	}
	return next, nil
}

// HasPendingLogs reports whether the root of dir holds a file a gate wrote
// (a check log, a review slot's log or JSON; see own): the next run then verifies
// those failures (verification mode).
func HasPendingLogs(dir string) (bool, error) {
	names, err := own(dir)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if n.IsGate() {
			return true, nil
		}
	}
	return false, nil
}

// LatestConsoleLog returns the absolute path of the console.N.log with the
// highest N at the root of dir, or "" when there is none.
func LatestConsoleLog(dir string) (string, error) {
	names, err := own(dir)
	if err != nil {
		return "", err
	}
	var best *Name
	for i, n := range names {
		if n.Kind == KindConsole && (best == nil || n.Run > best.Run) {
			best = &names[i]
		}
	}
	if best == nil {
		return "", nil
	}
	abs, err := filepath.Abs(best.Path(dir))
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", best, err)
	}
	return abs, nil
}

// HasLogs reports whether Clean has logs to archive in dir: one of the
// gauntlet's numbered files at its root. A missing dir has none.
func HasLogs(dir string) (bool, error) {
	names, err := own(dir)
	return len(names) > 0, err
}

// OpenLog opens the log file at path for appending, creating it if needed
// and emptying it first when truncate is set, and records it as one the
// gauntlet wrote (Note; the caller notes it again once written). A file
// already there that the record says the gauntlet did not write (see
// Note) is an error, and is left as it was. It is open for reading too,
// so that what a command wrote to it can be read back (a check's failure
// fingerprint for its baseline). It never writes through
// anything put where a log goes: a symbolic link, a FIFO, a directory or
// device, or a file with other hard links (emptying it would empty the
// other name's content too) is an error naming what the path is, and is
// left as it was. It never blocks on a FIFO.
func OpenLog(path string, truncate bool) (*os.File, error) {
	_, existed := lstat(path)
	f, err := openLogFile(path)
	if err != nil {
		return nil, openLogError(path, owned.Unvia(err))
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: &fsread.NotRegularError{Mode: fi.Mode(), Want: "a regular file"}}
	}
	if err == nil && hardLinks(f, fi) > 1 {
		err = &fs.PathError{Op: "open", Path: path, Err: errHardLinked}
	}
	if err == nil && existed == nil && !readOwnership(logDirOf(path)).ownsOpen(logDirOf(path), path, f) {
		err = &fs.PathError{Op: "open", Path: path, Err: errNotWritten}
	}
	if err == nil && truncate {
		err = f.Truncate(0)
	}
	if err == nil {
		_ = Note(path, false) // failing, it only leaves the file in place
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errNotWritten is OpenLog's error for a file there that the gauntlet did
// not write.
var errNotWritten = errors.New("is not a file agent-gauntlet wrote: it is left as it is")

// errHardLinked is OpenLog's error for a file with other hard links.
var errHardLinked = errors.New("has other hard links, not a file agent-gauntlet writes")

// openLogError names what the path is when the open failed because of it:
// a symbolic link (O_NOFOLLOW), a FIFO without a reader (O_NONBLOCK), a
// directory.
func openLogError(path string, err error) error {
	var m fs.FileMode
	switch {
	case errors.Is(err, syscall.ELOOP):
		m = fs.ModeSymlink
	case errors.Is(err, syscall.ENXIO):
		m = fs.ModeNamedPipe
	case errors.Is(err, syscall.EISDIR):
		m = fs.ModeDir
	default:
		return err
	}
	return &fs.PathError{Op: "open", Path: path, Err: &fsread.NotRegularError{Mode: m, Want: "a regular file"}}
}

// openRoot opens the directory dir as an os.Root, through the directory
// held open when dir is below one (owned.Hold): a log directory replaced
// by a link during a run is not followed.
func openRoot(dir string) (*os.Root, error) {
	r, err := os.OpenRoot(owned.Via(dir))
	return r, owned.Unvia(err)
}

// lstat is os.Lstat of path, through the directory held open when path is
// below one (owned.Hold).
func lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(owned.Via(path))
	return fi, owned.Unvia(err)
}
