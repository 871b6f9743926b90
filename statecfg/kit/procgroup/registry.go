package procgroup

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ScratchDir is the directory, inside a run's log directory, of what a run
// keeps only while it runs: the process groups of its gates (one empty
// file per group, named for its id) and their changed-files lists. A run
// killed outright (SIGKILL: no handler runs) leaves them behind, and the
// next run, holding the lock, kills those groups and removes the files
// (Reap).
const ScratchDir = ".gauntlet-scratch"

// registryKey keys the directory of a run's group records in a context.
type registryKey struct{}

// WithRegistry makes the children started with ctx (runner's proc.Run)
// record their process groups in dir while they run.
func WithRegistry(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, registryKey{}, dir)
}

// Register records the group led by pid in ctx's registry (WithRegistry),
// returning what removes the record; both do nothing without a registry.
// A record that cannot be written is no error: the group is still killed
// when its run ends in any way but SIGKILL.
func Register(ctx context.Context, pid int) (unregister func()) {
	dir, _ := ctx.Value(registryKey{}).(string)
	if dir == "" {
		return func() {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}
	}
	path := filepath.Join(dir, strconv.Itoa(pid))
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	f.Close()
	return func() { os.Remove(path) }
}

// Reap kills every process group recorded in dir, which no live run holds
// (the caller holds the run lock), and removes every file there; it
// returns how many groups it found. A gate's group is led by a session leader it
// started (Attr), so its id is one no other group takes while any member
// lives: a group already gone is skipped.
func Reap(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		pid, err := strconv.Atoi(name)
		if err == nil && pid > 1 && !strings.HasPrefix(name, "-") {
			if killGroup(pid) {
				n++
			}
		}
		os.Remove(filepath.Join(dir, name))
	}
	return n
}
