package cache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// The changes of a local run (base...HEAD, staged, and what differs on
// disk from HEAD's checkout) are a function of the base commit, HEAD, the
// user's index, the work tree, which the run's snapshot captures (its
// KeyTree: every file that is not ignored, as it is on disk, the
// repositories inside it included), and what decides git's conversions on
// checkout (git.ViewIdentity). With the cache on, a run keeps the changes it listed
// under those; a run that finds them again takes them instead of asking
// git: a stop with nothing new to check then scans the work tree once (the
// snapshot, in its kept index) rather than twice.

// changesTag opens every key of the changes memo.
const changesTag = "agent-gauntlet local changes v6"

// changesKind is the store kind (a directory of store.Dir in the git common
// directory) of the changes memo, kept apart from the results: it is only
// an acceleration, bounded on its own (changesBytes).
const changesKind = "changes"

// changesBytes bounds the changes memo.
const changesBytes = 4 << 20

// ChangesDir is the directory of the changes memo of the repository whose
// git common directory is commonDir.
func ChangesDir(commonDir string) string { return filepath.Join(commonDir, store.Dir, changesKind) }

// changesKeyDoc is the canonical form of a changes key.
type changesKeyDoc struct {
	Tag        string `json:"tag"`
	Version    string `json:"version"`
	Project    string `json:"project"`
	BaseBranch string `json:"base_branch"`
	BaseCommit string `json:"base_commit"`
	Head       string `json:"head"`
	// Index identifies the user's index by its entries (see
	// git.TreeSnapshot.UserIndex), not its file: git rewrites the file to
	// refresh the stats it caches, which stages nothing.
	Index string `json:"index"`
	// Tree is the snapshot's KeyTree (the repositories inside the work
	// tree included); View identifies what decides which file git
	// converts on checkout (git.ViewIdentity).
	Tree string `json:"tree"`
	View string `json:"view"`
}

// memoRecord is what the changes memo keeps: the changes, and those of
// them that do not exist as files (deleted, or a directory now). Both are
// functions of the key: which changed paths exist is what the snapshot
// tree says of them. Path lists are kept one path a line (a path holding
// a line break is never recorded), and stored raw (ledger.PutRaw): the
// JSON of memoHead, a line break, the changed paths, a line break, the
// absent ones. A hit on a change of 10,000 files reads them as one
// string, byte for byte as git gave them, without decoding it.
type memoRecord struct {
	memoHead
	Files, Absent string
}

// memoHead is the first line of a memoRecord.
type memoHead struct {
	// FilesBytes is the length of Files.
	FilesBytes int      `json:"files_bytes"`
	BaseRef    string   `json:"base_ref"`
	Warnings   []string `json:"warnings"`
	// Complete is true in every record written whole.
	Complete bool `json:"complete"`
}

// newMemoRecord is the record of ch with the paths of absent; ok is false
// when a path holds a line break.
func newMemoRecord(ch git.Changes, absent []string) (memoRecord, bool) {
	for _, l := range [][]string{ch.Files, absent} {
		for _, f := range l {
			if strings.ContainsAny(f, "\n\r") {
				return memoRecord{}, false
			}
		}
	}
	files := strings.Join(ch.Files, "\n")
	return memoRecord{Files: files, Absent: strings.Join(absent, "\n"),
		memoHead: memoHead{FilesBytes: len(files), BaseRef: ch.BaseRef, Warnings: ch.Warnings, Complete: true}}, true
}

// encode is the stored form of r.
func (r memoRecord) encode() ([]byte, error) {
	head, err := json.Marshal(r.memoHead)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(head)+len(r.Files)+len(r.Absent)+2)
	return append(append(append(append(append(b, head...), '\n'), r.Files...), '\n'), r.Absent...), nil
}

// decodeMemoRecord reads a stored memoRecord.
func decodeMemoRecord(data []byte) (memoRecord, error) {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return memoRecord{}, errors.New("changes memo record without its paths")
	}
	var r memoRecord
	if err := json.Unmarshal(head, &r.memoHead); err != nil {
		return memoRecord{}, fmt.Errorf("changes memo record: %w", err)
	}
	n := r.FilesBytes
	if n < 0 || n >= len(rest) || rest[n] != '\n' {
		return memoRecord{}, fmt.Errorf("changes memo record: %d bytes of paths, then no line break", n)
	}
	r.Files, r.Absent = string(rest[:n]), string(rest[n+1:])
	return r, nil
}

// lines splits a path list of a memoRecord.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// changes are the changes of r.
func (r memoRecord) changes() git.Changes {
	return git.Changes{Files: lines(r.Files), BaseRef: r.BaseRef, Warnings: r.Warnings}
}

// Memo is the changes memo of one run: its ledger, and the key of the
// changes now, with the identities of the user's index file and HEAD when
// it was made (Record keeps the changes only if neither moved).
type Memo struct {
	ledger      *ledger.Ledger
	key         string
	index, head string
}

// NewMemo is the memo of the changes of spec (a local run) of the project
// at root now, keyed by version, where the project sits (loc), what the
// run's snapshot of the work tree says a program can see (tree: its
// KeyTree), what decides git's conversions on checkout, the base commit
// and HEAD (refs) and the user's index (userIndex: what its entries say,
// as the snapshot read them); ok is false when there is none (no HEAD, a
// base that names nothing, an index or a view whose identity cannot be
// told).
func NewMemo(ctx context.Context, root, version string, loc git.Location, tree, userIndex string, refs git.Refs, spec gate.DiffSpec) (*Memo, bool) {
	if refs.BaseErr != nil || refs.Head == "" || userIndex == "" {
		return nil, false
	}
	index, ok := git.IndexIdentity(ctx, root)
	if !ok {
		return nil, false
	}
	view, ok := git.ViewIdentity(ctx, root)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(changesKeyDoc{Tag: changesTag, Version: version, Project: loc.Prefix,
		BaseBranch: spec.BaseBranch, BaseCommit: refs.Base, Head: refs.Head, Index: userIndex, Tree: tree, View: view})
	if err != nil {
		return nil, false
	}
	return &Memo{ledger: ledger.Open(loc.CommonDir, filepath.Join(store.Dir, changesKind), changesBytes), key: string(b), index: index, head: refs.Head}, true
}

// Listed are a run's changes, with what the memo knows of them.
type Listed struct {
	git.Changes
	// Exists says, of each changed path a hit of the memo holds, whether it
	// exists as a file; nil after a miss.
	Exists map[string]bool
	// miss is the memo that missed: Record keeps the changes there.
	miss *Memo
}

// Changes returns the changes of spec of the project at root: from the
// memo m when it holds them, else listed by git from the run's snapshot
// snap (nil: git takes one) and kept for Record. A nil memo always asks
// git.
func (m *Memo) Changes(ctx context.Context, root string, spec gate.DiffSpec, snap *git.TreeSnapshot, debug *debuglog.Log) (Listed, error) {
	if m != nil {
		data, _, hit, why := m.ledger.GetRaw(m.key)
		var rec memoRecord
		if hit {
			if rec, why = decodeMemoRecord(data); why != nil {
				hit = false
			}
		}
		if why != nil {
			debug.Event(debuglog.EventCache, fmt.Sprintf("changes: %v", why))
		}
		if hit && rec.Complete {
			ch := rec.changes()
			exists := make(map[string]bool, len(ch.Files))
			for _, f := range ch.Files {
				exists[f] = true
			}
			for _, f := range lines(rec.Absent) {
				exists[f] = false
			}
			return Listed{Changes: ch, Exists: exists}, nil
		}
	}
	ch, err := git.ChangedFilesIn(ctx, root, spec, snap)
	return Listed{Changes: ch, miss: m}, err
}

// Record keeps the changes listed on a miss of the memo, when their key
// still describes the repository of the project at root: neither the
// user's index nor HEAD moved, and still says the work tree is still the
// run's snapshot. exists tells which changed paths exist as files.
func (l Listed) Record(ctx context.Context, root string, exists func(string) bool, still func(context.Context) bool, debug *debuglog.Log) {
	m := l.miss
	if m == nil || ctx.Err() != nil {
		return
	}
	if index, ok := git.IndexIdentity(ctx, root); !ok || index != m.index {
		return
	}
	if head, err := git.Head(ctx, root); err != nil || head != m.head {
		return
	}
	if !still(ctx) {
		return
	}
	var absent []string
	for _, f := range l.Files {
		if !exists(f) {
			absent = append(absent, f)
		}
	}
	rec, ok := newMemoRecord(l.Changes, absent)
	if !ok {
		return
	}
	data, err := rec.encode()
	if err == nil {
		err = m.ledger.PutRaw(m.key, data)
	}
	if err != nil {
		debug.Event(debuglog.EventCache, fmt.Sprintf("changes not recorded: %v", err))
	}
	if _, err := m.ledger.Sweep(); err != nil {
		debug.Event(debuglog.EventCache, err.Error())
	}
}
