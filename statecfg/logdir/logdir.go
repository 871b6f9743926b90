// Package logdir knows the layout of the log directory (default
// gauntlet_logs/): the names of its numbered files (Name: console logs,
// check logs, review slot logs and JSON, with job ids encoded so that no
// two jobs share a file), run numbering, pending failure logs
// (verification mode), the latest console log, and archiving into
// previous/ (clean).
//
// The execution state (state.File) and the run lock (lock.File) keep their
// own packages; this one only leaves them where they are.
package logdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
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
)

// readRoot lists the files (not directories) at the root of dir; a missing
// dir has none.
func readRoot(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read log directory %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// NextRunNumber returns 1 + the highest run number N among the numbered
// files at the root of dir (.N.log and .N.json, console logs and files in
// no gauntlet format included); 1 for an empty or missing dir.
func NextRunNumber(dir string) (int, error) {
	names, err := Scan(dir)
	if err != nil {
		return 0, err
	}
	highest := 0
	for _, n := range names {
		highest = max(highest, n.Run)
	}
	return highest + 1, nil
}

// HasPendingLogs reports whether the root of dir holds a file a gate wrote
// (a check log, a review slot's log or JSON): the next run then verifies
// those failures (verification mode).
func HasPendingLogs(dir string) (bool, error) {
	names, err := Scan(dir)
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
	names, err := Scan(dir)
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

func isLogFile(name string) bool {
	return strings.HasSuffix(name, ".log") || strings.HasSuffix(name, ".json")
}

// persistent reports whether the root entry name stays in place on clean.
func persistent(name string, includeState bool) bool {
	switch name {
	case PreviousDir, DebugLogFile, DebugLogBackupFile, lock.File, SessionRefFile:
		return true
	case state.File, CommitDir:
		return !includeState
	}
	return false
}

// HasLogs reports whether Clean has logs to archive in dir: a .log or
// .json file at its root other than the persistent ones. A missing dir has
// none.
func HasLogs(dir string) (bool, error) {
	names, err := readRoot(dir)
	if err != nil {
		return false, err
	}
	return hasLogs(names), nil
}

// hasLogs is HasLogs over the root file names.
func hasLogs(names []string) bool {
	for _, name := range names {
		if isLogFile(name) && !persistent(name, false) {
			return true
		}
	}
	return false
}

// Clean archives the logs of dir into dir/previous/. It does nothing (false,
// nil) when dir is missing or its root holds no .log or .json file other
// than the debug log. Otherwise it empties previous/ (creating it if
// needed), moves every root entry into it except previous/, the debug logs,
// the lock file and, unless includeState, the execution state, and deletes
// the legacy .session_ref. It goes on after a failure and returns every
// failure joined; cleaned says whether anything was archived. The caller
// holds the run lock.
func Clean(dir string, includeState bool) (cleaned bool, err error) {
	names, err := readRoot(dir)
	if err != nil {
		return false, err
	}
	prev := filepath.Join(dir, PreviousDir)
	if !hasLogs(names) {
		// No logs (a passed run archived them already): the state and the
		// logs of past commits still move, next to that archive, which
		// stays as it is.
		if !includeState {
			return false, nil
		}
		var moved []string
		if slices.Contains(names, state.File) {
			moved = append(moved, state.File)
		}
		if fi, err := os.Lstat(filepath.Join(dir, CommitDir)); err == nil && fi.IsDir() {
			moved = append(moved, CommitDir)
		}
		if len(moved) == 0 {
			return false, nil
		}
		if err := os.MkdirAll(prev, 0o755); err != nil {
			return false, fmt.Errorf("create %s: %w", prev, err)
		}
		for _, name := range moved {
			_ = os.RemoveAll(filepath.Join(prev, name))
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(prev, name)); err != nil {
				return false, fmt.Errorf("archive %s: %w", name, err)
			}
		}
		return true, nil
	}
	if err := emptyDir(prev); err != nil {
		return false, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("read log directory %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		if persistent(e.Name(), includeState) {
			continue
		}
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(prev, e.Name())); err != nil {
			errs = append(errs, fmt.Errorf("archive %s: %w", e.Name(), err))
			continue
		}
		cleaned = true
	}
	if err := os.Remove(filepath.Join(dir, SessionRefFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove %s: %w", SessionRefFile, err))
	}
	return cleaned, errors.Join(errs...)
}

// emptyDir makes dir an empty directory.
func emptyDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("inspect %s: %w", dir, err)
	case !fi.IsDir():
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("replace %s with a directory: %w", dir, err)
		}
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("read %s: %w", dir, err)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("empty %s: %w", dir, err)
			}
		}
		return nil
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}
