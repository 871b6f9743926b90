package git

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// holdSuffix names, next to a kept index, the empty file whose lock a
// snapshot holds while it uses the kept index (holdKept).
const holdSuffix = ".hold"

// holdKept takes, without waiting, the exclusive hold of the kept index
// kept: nil when another snapshot, of this process or another, holds it
// (or the hold cannot be made), and then the snapshot takes a temporary
// index instead. A kept index is read and written by one snapshot at a
// time: two `git add`s, a write-tree and a stat clearing interleaved in
// one index file can leave it, for a moment, as neither wrote it, and a
// tree written from such a moment is not the work tree. Closing the file
// releases the hold (TreeSnapshot.Close, or the process ending).
func holdKept(kept string) *os.File {
	f, err := os.OpenFile(kept+holdSuffix, os.O_RDWR|os.O_CREATE|owned.NoFollow, 0o600)
	if err != nil {
		return nil
	}
	if ok, err := filelock.TryLock(f); err != nil || !ok {
		f.Close()
		return nil
	}
	return f
}
