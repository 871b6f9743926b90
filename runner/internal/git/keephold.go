package git

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// holdSuffix names, next to a kept index, the empty file whose lock a
// snapshot holds while it uses the kept index (holdKept).
const holdSuffix = ".hold"

// keptHold is a snapshot's hold of a kept index (holdKept).
type keptHold struct {
	f    *os.File
	kept string
}

// holdKept takes, without waiting, the exclusive hold of the kept index
// kept: nil when another snapshot, of this process or another, holds it
// (or the hold cannot be made), and then the snapshot takes a temporary
// index instead. A kept index is read and written by one snapshot at a
// time: two `git add`s, a write-tree and a stat clearing interleaved in
// one index file can leave it, for a moment, as neither wrote it, and a
// tree written from such a moment is not the work tree. Releasing the
// hold (release, from TreeSnapshot.Close) or the process ending lets go.
func holdKept(kept string) *keptHold {
	f, err := os.OpenFile(kept+holdSuffix, os.O_RDWR|os.O_CREATE|owned.NoFollow, 0o600)
	if err != nil {
		return nil
	}
	if ok, err := filelock.TryLock(f); err != nil || !ok {
		f.Close()
		return nil
	}
	return &keptHold{f: f, kept: kept}
}

// release lets go of the hold. git's lock of the kept index found then is
// one a git of this snapshot left, killed by a deadline or an ending
// signal before it could remove it: while the hold is held no other
// snapshot's git touches the kept index, and the snapshot took the hold
// only with no lock there (busy), so the lock is removed first; left in
// place, it would send every later snapshot to a temporary index, a whole
// `git add -A` each, until it is staleLock old.
func (h *keptHold) release() {
	if h == nil {
		return
	}
	lock := h.kept + ".lock"
	if fi, err := os.Lstat(lock); err == nil && fi.Mode().IsRegular() {
		_ = os.Remove(lock)
	}
	h.f.Close()
}
