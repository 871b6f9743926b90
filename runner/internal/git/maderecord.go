package git

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// A linked worktree's HEAD reflog is the only record of a commit made on
// its detached HEAD, and `git worktree remove` deletes it with the
// worktree. The made record keeps, in the store's directory of the git
// common directory, the commits those reflogs recorded as made when a
// stop last read them (RememberMade), so that MadeHere still knows them
// after the worktree is gone. A stop reads a linked worktree's reflog
// again only when its files' identity (filestat) moved since; a steady
// stop lists the worktrees and stats their reflogs, with no git process.

// madeRecordName is the made record's file in the store's directory.
const madeRecordName = "made.json"

// maxMadeRecorded bounds the commits the made record keeps, the latest
// kept.
const maxMadeRecorded = 4096

// madeRecord is what the made record keeps.
type madeRecord struct {
	// Seen is, for each linked worktree id, the identity of its reflog's
	// files when the record last read them.
	Seen map[string]string `json:"seen"`
	// Made are the commits those reflogs recorded as made, oldest first.
	Made []string `json:"made"`
}

// readMadeRecord reads the made record of the common directory common
// (empty when missing or unreadable).
func readMadeRecord(common string) madeRecord {
	var m madeRecord
	data, err := fsread.File(filepath.Join(common, store.Dir, madeRecordName), maxOwnFile)
	if err != nil || json.Unmarshal(data, &m) != nil {
		return madeRecord{}
	}
	return m
}

// RememberMade adds to the made record of the repository at loc the
// commits each linked worktree's HEAD reflog records as made (creates)
// whose files moved since the record last read them. It writes nothing
// when the record would not change.
func RememberMade(ctx context.Context, root string, loc Location) error {
	m := readMadeRecord(loc.CommonDir)
	before := time.Now().Add(-filestat.Margin)
	seen := map[string]string{}
	var heads []string
	for _, id := range linkedWorktreeIDs(loc.CommonDir) {
		key, old := reflogKey(loc.CommonDir, id, before)
		if old {
			seen[id] = key
		}
		if !old || m.Seen[id] != key {
			heads = append(heads, "worktrees/"+id+"/HEAD")
		}
	}
	var found []string
	if len(heads) > 0 {
		var err error
		if found, err = createdIn(ctx, root, heads); err != nil {
			return err
		}
	}
	grew, known := false, make(map[string]bool, len(m.Made))
	for _, c := range m.Made {
		known[c] = true
	}
	for _, c := range slices.Backward(found) {
		if !known[c] {
			m.Made, grew, known[c] = append(m.Made, c), true, true
		}
	}
	if !grew && maps.Equal(seen, m.Seen) {
		return nil
	}
	m.Made = m.Made[max(0, len(m.Made)-maxMadeRecorded):]
	m.Seen = seen
	if err := owned.MkdirAll(loc.CommonDir, store.Dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSONUnsynced(filepath.Join(loc.CommonDir, store.Dir, madeRecordName), m, 0o644)
}

// reflogKey is the identity of the files that hold the HEAD reflog of the
// linked worktree id (its logs/HEAD, or its reftable stack's list), and
// whether they are all older than before.
func reflogKey(common, id string, before time.Time) (string, bool) {
	dir := filepath.Join(common, "worktrees", id)
	var key []string
	all := true
	for _, f := range []string{"logs/HEAD", "reftable/tables.list"} {
		st, old := filestat.Of(filepath.Join(dir, f), before)
		all = all && old
		key = append(key, string(st))
	}
	return strings.Join(key, "|"), all
}
