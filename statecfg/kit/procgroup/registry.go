package procgroup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// ScratchDir is the directory, inside a run's log directory, of what a run
// keeps only while it runs: the process groups of its gates (one empty
// file per group, named for its id) and their changed-files lists. A run
// killed outright (SIGKILL: no handler runs) leaves them behind, and the
// next run, holding the lock, kills those groups and removes the files
// (Reap). The gauntlet's own scratch directory holds ownerMark; an entry
// of this name without it (a symbolic link, a file, a person's directory)
// is left as it is, and the run uses a fresh directory ScratchDir-*
// beside it (OpenScratch).
const ScratchDir = ".gauntlet-scratch"

// ownerMark is the empty file that makes a scratch directory the
// gauntlet's: made with the directory, removed with it.
const ownerMark = ".gauntlet-owned"

// registryKey keys the directory of a run's group records in a context.
type registryKey struct{}

// WithRegistry makes the children started with ctx (runner's proc.Run)
// record their process groups in dir, a scratch directory OpenScratch
// returned, while they run.
func WithRegistry(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, registryKey{}, dir)
}

// Scratch is the scratch directory of ctx's registry (WithRegistry), ""
// without one.
func Scratch(ctx context.Context) string {
	dir, _ := ctx.Value(registryKey{}).(string)
	return dir
}

// Register records the group led by pid in ctx's registry (WithRegistry),
// returning what removes the record; both do nothing without a registry.
// A record that cannot be written is no error: the group is still killed
// when its run ends in any way but SIGKILL.
func Register(ctx context.Context, pid int) (unregister func()) {
	dir := Scratch(ctx)
	if dir == "" {
		return func() {}
	}
	// Through the scratch directory held open (the run holds it,
	// owned.Hold), never through what is at its name by then.
	path := filepath.Join(dir, strconv.Itoa(pid))
	f, err := os.OpenFile(owned.Via(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return func() {}
	}
	f.Close()
	return func() { os.Remove(owned.Via(path)) }
}

// OpenScratch returns the scratch directory of a run in logDir, a
// directory the caller owns and whose run lock it holds: ScratchDir,
// created with its mark when missing, or reused when it holds the mark;
// when ScratchDir is anything else (a symbolic link, a file, a directory
// the gauntlet did not make), a fresh directory ScratchDir-* in logDir,
// and the entry is not touched. CloseScratch removes it again.
func OpenScratch(logDir string) (string, error) {
	dir := filepath.Join(logDir, ScratchDir)
	err := os.Mkdir(dir, 0o755)
	if err == nil {
		if err := mark(dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	if isOwn(dir) {
		return dir, nil
	}
	fresh, err := os.MkdirTemp(logDir, ScratchDir+"-")
	if err != nil {
		return "", fmt.Errorf("create a scratch directory in %s: %w", logDir, err)
	}
	if err := mark(fresh); err != nil {
		return "", err
	}
	return fresh, nil
}

// CloseScratch removes the scratch directory dir (OpenScratch) when it
// holds nothing but its mark; a record a live child still has (none once
// the run's children are gone) keeps it for the next run's Reap.
func CloseScratch(dir string) {
	entries, err := readOwn(dir)
	if err != nil || len(entries) != 1 {
		return
	}
	os.Remove(filepath.Join(dir, ownerMark))
	_ = owned.RemoveDir(dir)
}

// Reap kills every process group recorded in the gauntlet's scratch
// directories of logDir (ScratchDir and ScratchDir-*, each holding its
// mark), which no live run holds (the caller holds the run lock), and
// removes them; it returns how many groups it found. An entry of those
// names without the mark is not the gauntlet's and is left as it is. A
// gate's group is led by a session leader it started (Attr), so its id is
// one no other group takes while any member lives: a group already gone
// is skipped.
func Reap(logDir string) int {
	dirs, _ := filepath.Glob(filepath.Join(logDir, ScratchDir+"-*"))
	dirs = append(dirs, filepath.Join(logDir, ScratchDir))
	n := 0
	for _, dir := range dirs {
		n += reapDir(dir)
	}
	return n
}

// reapDir is Reap for one scratch directory.
func reapDir(dir string) int {
	entries, err := readOwn(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		pid, err := strconv.Atoi(name)
		if err == nil && pid > 1 && !strings.HasPrefix(name, "-") && e.Type().IsRegular() {
			if killGroup(pid) {
				n++
			}
		}
		if name != ownerMark && !e.IsDir() {
			os.Remove(filepath.Join(dir, name))
		}
	}
	CloseScratch(dir)
	return n
}

// readOwn lists dir when it is a scratch directory the gauntlet made: a
// directory, not a link to one, holding the mark as a regular file.
func readOwn(dir string) ([]fs.DirEntry, error) {
	if !isOwn(dir) {
		return nil, fmt.Errorf("%s is not a scratch directory of the gauntlet", dir)
	}
	return os.ReadDir(dir)
}

// isOwn reports whether dir is a directory (not a link) holding the mark.
func isOwn(dir string) bool {
	if !owned.IsDir(dir) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, ownerMark))
	return err == nil && fi.Mode().IsRegular()
}

// mark makes dir, which the caller just created, the gauntlet's.
func mark(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ownerMark), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("mark the scratch directory %s: %w", dir, err)
	}
	return f.Close()
}
