package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// The changes of a local run (base...HEAD, staged, unstaged and untracked
// paths) are a function of the base commit, HEAD, the user's index and the
// work tree, which the run's snapshot tree captures (tracked files as they
// are, untracked ones that are not ignored, under the ignore rules git
// applies to both). With the cache on, a run keeps the changes it listed
// under those; a run that finds them again takes them instead of asking
// git: a stop with nothing new to check then scans the work tree once (the
// snapshot, in its kept index) rather than twice.

// changesTag opens every key of the changes memo.
const changesTag = "agent-gauntlet local changes v3"

// ChangesKind is the store kind (a directory of store.Dir in the git common
// directory) of the changes memo, kept apart from the results: it is only
// an acceleration, bounded on its own (changesBytes).
const ChangesKind = "changes"

// changesBytes bounds the changes memo.
const changesBytes = 4 << 20

// ChangesDir is the directory of the changes memo of the repository whose
// git common directory is commonDir.
func ChangesDir(commonDir string) string { return filepath.Join(commonDir, store.Dir, ChangesKind) }

// changesKeyDoc is the canonical form of a changes key.
type changesKeyDoc struct {
	Tag        string `json:"tag"`
	Version    string `json:"version"`
	Project    string `json:"project"`
	BaseBranch string `json:"base_branch"`
	BaseCommit string `json:"base_commit"`
	Head       string `json:"head"`
	Index      string `json:"index"`
	Tree       string `json:"tree"`
}

// memoRecord is what the changes memo keeps: the changes, and those of
// them that do not exist as files (deleted, or a directory now). Both are
// functions of the key: which changed paths exist is what the snapshot
// tree says of them. Path lists are kept one path a line: a change of
// 10,000 files reads as one string, not as 10,000 (a path holding a line
// break is never recorded).
type memoRecord struct {
	Files    string   `json:"files"`
	Absent   string   `json:"absent"`
	BaseRef  string   `json:"base_ref"`
	Warnings []string `json:"warnings"`
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
	return memoRecord{Files: strings.Join(ch.Files, "\n"), Absent: strings.Join(absent, "\n"), BaseRef: ch.BaseRef,
		Warnings: ch.Warnings, Complete: true}, true
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

// changesMemo is a miss of the changes memo, to record when the run ends.
type changesMemo struct {
	ledger  *ledger.Ledger
	key     string
	changes git.Changes
	index   string
	head    string
}

// listChanges starts listing the run's changes: from the memo when the
// cache is on and the scope is local, else from git.
func (e *execution) listChanges(ctx context.Context, spec gate.DiffSpec) *future[git.Changes] {
	if !e.cacheWanted() || spec.Mode != gate.DiffLocal {
		return async(func() (git.Changes, error) { return git.ChangedFiles(ctx, e.root, spec) })
	}
	// The keys of the gates need the snapshot anyway: it is taken first,
	// while git answers the other questions of the key.
	e.snap.start()
	e.refs.start()
	e.loc.start()
	return async(func() (git.Changes, error) { return e.memoChanges(ctx, spec) })
}

// memoChanges returns the changes of spec from the memo, or lists them
// and notes them for recordChanges.
func (e *execution) memoChanges(ctx context.Context, spec gate.DiffSpec) (git.Changes, error) {
	l, key, index, head, ok := e.changesKey(ctx, spec)
	if ok {
		var rec memoRecord
		_, hit, why := l.Get(key, &rec)
		if why != nil {
			e.debug.Event(debuglog.EventCache, fmt.Sprintf("changes: %v", why))
		}
		if hit && rec.Complete {
			ch := rec.changes()
			e.memoFiles = make(map[string]bool, len(ch.Files))
			for _, f := range ch.Files {
				e.memoFiles[f] = true
			}
			for _, f := range lines(rec.Absent) {
				e.memoFiles[f] = false
			}
			return ch, nil
		}
	}
	ch, err := git.ChangedFiles(ctx, e.root, spec)
	if err == nil && ok {
		e.changesMemo = &changesMemo{ledger: l, key: key, changes: ch, index: index, head: head}
	}
	return ch, err
}

// changesKey is the key of the changes of spec now, with the ledger and
// the identities of the user's index and HEAD it holds; ok is false when
// there is none (no snapshot, no HEAD, a base that names nothing, a
// repository that cannot be located, submodules).
func (e *execution) changesKey(ctx context.Context, spec gate.DiffSpec) (l *ledger.Ledger, key, index, head string, ok bool) {
	loc, err := e.loc.get()
	if err != nil || hasSubmodules(e.root, loc.Prefix) {
		return nil, "", "", "", false
	}
	tree, err := e.snapshotTree(ctx)
	if err != nil {
		return nil, "", "", "", false
	}
	refs, err := e.refs.get()
	if err != nil || refs.BaseErr != nil || refs.Head == "" {
		return nil, "", "", "", false
	}
	index, ok = git.IndexIdentity(ctx, e.root)
	if !ok {
		return nil, "", "", "", false
	}
	b, err := json.Marshal(changesKeyDoc{Tag: changesTag, Version: e.opts.Version, Project: loc.Prefix,
		BaseBranch: spec.BaseBranch, BaseCommit: refs.Base, Head: refs.Head, Index: index, Tree: tree})
	if err != nil {
		return nil, "", "", "", false
	}
	return ledger.Open(ChangesDir(loc.CommonDir), changesBytes), string(b), index, refs.Head, true
}

// fileExists tells whether a changed path exists as a file (see
// scopeJobs): as the changes memo recorded it for the paths it holds, else
// as the file system says, each path asked once.
func (e *execution) fileExists(files []string) func(string) bool {
	if e.exists != nil {
		return e.exists
	}
	fs := entry.FileExists(e.root, files)
	memo := e.memoFiles
	e.exists = func(f string) bool {
		if present, ok := memo[f]; ok {
			return present
		}
		return fs(f)
	}
	return e.exists
}

// recordChanges records the changes listed on a miss of the memo, when
// their key still describes the repository: the work tree is still the
// snapshot, and neither the user's index nor HEAD moved.
func (e *execution) recordChanges(ctx context.Context) {
	e.changed.wait() // a run that ended early still lists them meanwhile
	m := e.changesMemo
	if m == nil || ctx.Err() != nil {
		return
	}
	if index, ok := git.IndexIdentity(ctx, e.root); !ok || index != m.index {
		return
	}
	if head, err := git.Head(ctx, e.root); err != nil || head != m.head {
		return
	}
	if !e.snapshotStill(ctx) {
		return
	}
	var absent []string
	exists := e.fileExists(m.changes.Files)
	for _, f := range m.changes.Files {
		if !exists(f) {
			absent = append(absent, f)
		}
	}
	rec, ok := newMemoRecord(m.changes, absent)
	if !ok {
		return
	}
	if err := m.ledger.Put(m.key, rec); err != nil {
		e.debug.Event(debuglog.EventCache, fmt.Sprintf("changes not recorded: %v", err))
	}
	if _, err := m.ledger.Sweep(); err != nil {
		e.debug.Event(debuglog.EventCache, err.Error())
	}
}
