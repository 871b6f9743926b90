package logdir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// The record of the files the gauntlet wrote. Clean, archiving and the
// debug log's rotation move or delete a file of a log directory only when
// the record holds that very file: its path, and the identity it had when
// the gauntlet wrote it (its device and inode, and a digest of its first
// bytes, which the gauntlet's own appends never change; for a review's
// JSON, which the agent edits, its path alone). Any other file
// stays where it is, whatever its name: a person's console.9.log, a file
// written over one of the gauntlet's names, a copy put in previous/.
//
// The record lives under the repository's git common directory (see
// store), one per work tree, keyed by paths relative to the work tree's
// top level, so that the logs never hold it and archiving never touches
// it. It knows the log directories it has started (Start, or the first
// file the gauntlet writes there); when a log directory is started, the
// files already in it whose names are the gauntlet's (IsOwn: logs an
// earlier version or the TypeScript tool wrote) are adopted by the rule
// of start. A log directory the record does not know (no record yet, or
// no repository around it) is judged by that same rule, in memory: never
// by names alone, so a file no run can have written stays where it is.

// recordKind is the store's directory of the records.
const recordKind = "written"

// recordFormat is the version of the record's format; another is no
// record.
const recordFormat = 1

// digestBytes bounds the prefix of a file whose digest the record keeps.
const digestBytes = 4096

// fileID is what the record keeps of one file.
type fileID struct {
	Dev uint64 `json:"dev,omitempty"`
	Ino uint64 `json:"ino,omitempty"`
	// N is how many first bytes Sum digests (SHA-256, hex).
	N   int64  `json:"n,omitempty"`
	Sum string `json:"sum,omitempty"`
	// Edited marks a file others are meant to edit (a review's JSON): its
	// path alone is its identity, since editors and tools such as sed -i
	// write a new file in its place.
	Edited bool `json:"edited,omitempty"`
	// Adopted marks a file the gauntlet did not write but took as an
	// earlier run's when the record started (see start): it may be a
	// person's, so it is moved, never deleted nor written over.
	Adopted bool `json:"adopted,omitempty"`
	// Held are the keys (EntryKey) of the entries of a review JSON file
	// when the gauntlet wrote or adopted it; HeldKnown tells they were
	// recorded (an earlier record's review files have none).
	Held      []string `json:"held,omitempty"`
	HeldKnown bool     `json:"held_known,omitempty"`
}

// same reports whether id and o are one identity, held entries included.
func (id fileID) same(o fileID) bool {
	return id.Dev == o.Dev && id.Ino == o.Ino && id.N == o.N && id.Sum == o.Sum && id.Edited == o.Edited &&
		id.Adopted == o.Adopted && id.HeldKnown == o.HeldKnown && slices.Equal(id.Held, o.Held)
}

// writtenRecord is the record of one work tree, as stored.
type writtenRecord struct {
	Format int `json:"format"`
	// Dirs are the log directories started, with when.
	Dirs map[string]time.Time `json:"dirs"`
	// Files are the files the gauntlet wrote, by path.
	Files map[string]fileID `json:"files"`
}

// recordPlace is where the record of a log directory is.
type recordPlace struct {
	store store.Store
	top   string   // the work tree's top level
	key   []string // the record's key in the store
	dir   string   // the log directory's path from the top level, slash-separated
	// ran reports whether this version has run in the work tree
	// (storeUsed).
	ran func() bool
}

// locateRecord finds the record of the log directory dir, without running
// git; false outside a git work tree.
func locateRecord(dir string) (recordPlace, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return recordPlace{}, false
	}
	d, ok := gitdir.Find(abs)
	if !ok {
		return recordPlace{}, false
	}
	rel, err := filepath.Rel(d.TopLevel, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return recordPlace{}, false
	}
	worktree := "."
	if r, err := filepath.Rel(d.CommonDir, d.GitDir); err == nil && d.GitDir != d.CommonDir && filepath.IsLocal(r) {
		worktree = filepath.ToSlash(r)
	}
	ran := func() bool { return storeUsed(d.CommonDir, worktree) }
	return recordPlace{store: store.Open(d.CommonDir, recordKind), top: d.TopLevel, key: []string{worktree}, dir: filepath.ToSlash(rel), ran: ran}, true
}

// storeUsed reports whether this version has run in the work tree
// worktree of the repository whose git common directory is commonDir: it
// holds a verdict book there, or its store holds any record but those
// trusting a configuration writes (the trust record, its baseline and
// this record): a stop's answers, the views and indexes of its runs, its
// cache. Deleting all of them is deleting the store.
func storeUsed(commonDir, worktree string) bool {
	if len(verdicts.Projects(commonDir, worktree)) > 0 {
		return true
	}
	dir := filepath.Join(commonDir, store.Dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		switch e.Name() {
		case recordKind, trust.Kind, verdicts.BaselineKind:
			continue
		}
		if sub, err := os.ReadDir(filepath.Join(dir, e.Name())); err == nil && len(sub) > 0 {
			return true
		}
	}
	return false
}

// path is the record's key of rel, a path in the log directory.
func (p recordPlace) path(rel string) string {
	return filepath.ToSlash(filepath.Join(filepath.FromSlash(p.dir), rel))
}

// update changes the record under its lock; change reports whether it
// changed anything to write.
func (p recordPlace) update(change func(r *writtenRecord) bool) error {
	var r writtenRecord
	// Unsynced: a record lost in a system crash only leaves the files it
	// held in place (the log directory is then judged by names again).
	return p.store.UpdateUnsynced(&r, func() (bool, error) {
		if r.Format != recordFormat {
			r = writtenRecord{Format: recordFormat}
		}
		if r.Dirs == nil {
			r.Dirs = map[string]time.Time{}
		}
		if r.Files == nil {
			r.Files = map[string]fileID{}
		}
		return change(&r), nil
	}, p.key...)
}

// Start makes the record know the log directory dir, adopting the files
// with the gauntlet's names already there (see IsOwn) that an earlier run
// wrote: those in its root, previous/, commit/ and previous/commit/, when
// an execution state there (in its root or previous/) shows a run ended,
// and not written after the last such state (adoptSlack aside). Since
// that state may be planted, an adopted file may be a person's: it is
// archived like the gauntlet's own, but never deleted nor written over
// (see cleaner.aside). A log
// directory the record knows already is left as it is; outside a git work
// tree there is no record.
func Start(dir string) error {
	p, ok := locateRecord(dir)
	if !ok {
		return nil
	}
	return p.update(func(r *writtenRecord) bool {
		_, known := r.Dirs[p.dir]
		p.start(r, dir)
		return !known
	})
}

// start adopts dir's files in r when r does not know dir yet.
func (p recordPlace) start(r *writtenRecord, dir string) {
	if _, ok := r.Dirs[p.dir]; ok {
		return
	}
	r.Dirs[p.dir] = time.Now().UTC()
	last, ok := lastRunEnd(dir)
	if !ok {
		return // no run ever ended here: nothing is an earlier run's
	}
	// Where this version has run (storeUsed), the logs there
	// are its own, and its record of them was deleted: no file is taken
	// for an earlier run's but the execution state, which every run writes
	// anew. The rule is for the logs an older version or the TypeScript
	// tool left, before this version ever ran.
	onlyState := p.ran != nil && p.ran()
	for _, sub := range []string{".", PreviousDir, CommitDir, filepath.Join(PreviousDir, CommitDir)} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || classify(e.Name()) == foreign {
				continue
			}
			if fi, err := e.Info(); err != nil || fi.ModTime().After(last.Add(adoptSlack)) {
				continue
			}
			rel := filepath.Join(sub, e.Name())
			if classify(e.Name()) == stateFile && !isState(filepath.Join(dir, sub)) {
				continue // a person's file at the state's name
			}
			if onlyState && (sub != "." || classify(e.Name()) != stateFile) {
				continue
			}
			if id, err := identify(filepath.Join(dir, rel), false); err == nil {
				// The state is rewritten by every run, and the TypeScript
				// tool's session reference deleted, as that tool did.
				k := classify(e.Name())
				id.Adopted = k != stateFile && k != legacyDeleted
				if isSlotJSON(e.Name()) {
					id.Held, id.HeldKnown = heldEntries(filepath.Join(dir, rel))
				}
				r.Files[p.path(rel)] = id
			}
		}
	}
}

// adoptSlack is how long after the last execution state a file may have
// been written and still be adopted as that run's: a run writes its state
// as it ends, and may append a line or two to its console log after.
const adoptSlack = time.Minute

// isState reports whether the file at the execution state's name in dir
// reads as an execution state (this tool's or the TypeScript tool's).
func isState(dir string) bool {
	_, err := state.Read(dir)
	return err == nil
}

// lastRunEnd is when the latest execution state of the log directory dir
// (in its root or previous/) was written; false when there is none. A
// file of that name that does not read as an execution state (a person's)
// is no run's end.
func lastRunEnd(dir string) (time.Time, bool) {
	var last time.Time
	found := false
	for _, d := range []string{dir, filepath.Join(dir, PreviousDir)} {
		p := state.Path(d)
		if fi, err := lstat(p); err == nil && fi.Mode().IsRegular() && isState(d) {
			found = true
			if fi.ModTime().After(last) {
				last = fi.ModTime()
			}
		}
	}
	return last, found
}

// Note records the file at path, in a log directory (its root, previous/
// or commit/), as one the gauntlet wrote, with its identity now; edited
// tells that others are meant to edit it (a review's JSON, which the agent
// marks): then its content is not part of its identity, and the entries
// the record held for it stay (see NoteReview). It starts the log
// directory first (Start). Outside a git work tree it does nothing.
func Note(path string, edited bool) error {
	return note(path, edited, carryHeld)
}

// note is Note, with held setting what the record holds of the file's
// entries from the identity it held before (prev, had).
func note(path string, edited bool, held func(id *fileID, prev fileID, had bool)) error {
	dir := logDirOf(path)
	p, ok := locateRecord(dir)
	if !ok {
		return nil
	}
	id, err := identify(path, edited)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	return p.update(func(r *writtenRecord) bool {
		_, known := r.Dirs[p.dir]
		p.start(r, dir)
		prev, had := r.Files[p.path(rel)]
		held(&id, prev, had)
		if known && had && prev.same(id) {
			return false // as recorded: nothing to write
		}
		r.Files[p.path(rel)] = id
		prune(r, p)
		return true
	})
}

// logDirOf is the log directory holding the file at path: its directory,
// or that directory's parent for previous/ and commit/.
func logDirOf(path string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case PreviousDir, CommitDir:
		parent := filepath.Dir(dir)
		if filepath.Base(parent) == PreviousDir {
			parent = filepath.Dir(parent)
		}
		return parent
	}
	return dir
}

// prune drops from r the files of p's log directory that are gone, so
// that the record stays the size of what is there.
func prune(r *writtenRecord, p recordPlace) {
	prefix := p.dir + "/"
	if p.dir == "." {
		prefix = ""
	}
	for k := range r.Files {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if _, err := lstat(filepath.Join(p.top, filepath.FromSlash(k))); errors.Is(err, fs.ErrNotExist) {
			delete(r.Files, k)
		}
	}
}

// identify reads the identity of the file at path.
func identify(path string, edited bool) (fileID, error) {
	f, err := os.Open(owned.Via(path))
	if err != nil {
		return fileID{}, err
	}
	defer f.Close()
	return identifyOpen(f, edited)
}

// identifyOpen reads the identity of the open file f.
func identifyOpen(f fs.File, edited bool) (fileID, error) {
	fi, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	if edited {
		return fileID{Edited: true}, nil
	}
	id := fileID{}
	id.Dev, id.Ino = devIno(fi)
	id.N = min(fi.Size(), digestBytes)
	d := sha256.New()
	if _, err := io.CopyN(d, f, id.N); err != nil {
		return fileID{}, err
	}
	id.Sum = hex.EncodeToString(d.Sum(nil))
	return id, nil
}

// matches reports whether the open file f, read from its start, is the
// one id identifies.
func (id fileID) matches(f fs.File) bool {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if id.Edited {
		return !id.HeldKnown || holdsHeld(f, id.Held)
	}
	if dev, ino := devIno(fi); dev != id.Dev || ino != id.Ino {
		return false
	}
	if id.Sum == "" {
		return true
	}
	if fi.Size() < id.N {
		return false
	}
	d := sha256.New()
	if _, err := io.CopyN(d, f, id.N); err != nil {
		return false
	}
	return hex.EncodeToString(d.Sum(nil)) == id.Sum
}

// ownership is what one Clean knows of the record of its log directory,
// and the moves and deletions it makes, for the record to follow.
type ownership struct {
	place recordPlace
	// known is false when the record does not know the log directory:
	// then files holds what the adoption rule would adopt (see start),
	// and nothing is saved.
	known   bool
	files   map[string]fileID
	moved   map[string]string // record keys: from → to
	removed []string
}

// Started reports whether the record of the files the gauntlet wrote
// knows the log directory dir: this version started it (Start, at trust
// or at the first file it wrote there). Its logs and execution state are
// then this version's own or planted since, never an earlier tool's.
func Started(dir string) bool { return readOwnership(dir).known }

// readOwnership reads the record of the log directory dir.
func readOwnership(dir string) *ownership {
	o := &ownership{moved: map[string]string{}}
	p, ok := locateRecord(dir)
	if !ok {
		p = recordPlace{dir: "."} // no repository: keys relative to dir
	}
	o.place = p
	var r writtenRecord
	if ok {
		found, err := p.store.Read(&r, p.key...)
		if err == nil {
			err = p.store.Check(p.key...)
		}
		if err != nil {
			// A record that is there but cannot be read, or a store that
			// is not the gauntlet's (a link planted in its place, whatever
			// it leads to, a file that is no record): which files
			// the gauntlet wrote cannot be told, and the adoption rule
			// would take a person's file it knew as theirs (one written
			// before a run's execution state) for an earlier run's and
			// move it aside. Nothing is the gauntlet's until it reads.
			o.files = map[string]fileID{}
			return o
		}
		if found && r.Format == recordFormat {
			if _, ok := r.Dirs[p.dir]; ok {
				o.known, o.files = true, r.Files
				return o
			}
		}
	}
	o.files = adoptable(p, dir)
	return o
}

// adoptable is what starting the record of the log directory dir would
// adopt (see start), without recording anything: how a log directory the
// record does not know is judged.
func adoptable(p recordPlace, dir string) map[string]fileID {
	r := writtenRecord{Dirs: map[string]time.Time{}, Files: map[string]fileID{}}
	p.start(&r, dir)
	return r.Files
}

// owns reports whether the entry rel of the log directory, opened as
// root, is a file the gauntlet wrote (the record holds it with its present
// identity) or, where the record does not know the log directory, one the
// adoption rule takes as an earlier run's (see readOwnership).
func (o *ownership) owns(root *os.Root, rel string) bool {
	fi, err := root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	id, ok := o.files[o.place.path(rel)]
	if !ok {
		return false
	}
	f, err := openFileIn(root, rel)
	if err != nil {
		return false
	}
	defer f.Close()
	return id.matches(f)
}

// adopted reports whether the record holds rel as adopted (see start).
func (o *ownership) adopted(rel string) bool {
	return o.files[o.place.path(rel)].Adopted
}

// move records that the file at rel now is at to.
func (o *ownership) move(rel, to string) {
	if o.known {
		o.moved[o.place.path(rel)] = o.place.path(to)
	}
}

// remove records that the file at rel is deleted (or no longer the
// gauntlet's).
func (o *ownership) remove(rel string) {
	delete(o.files, o.place.path(rel))
	if o.known {
		o.removed = append(o.removed, o.place.path(rel))
	}
}

// save makes the record follow the moves and deletions.
func (o *ownership) save() error {
	if !o.known || len(o.moved)+len(o.removed) == 0 {
		return nil
	}
	return o.place.update(func(r *writtenRecord) bool {
		for _, k := range o.removed {
			delete(r.Files, k)
		}
		moved := map[string]fileID{}
		for from, to := range o.moved {
			if id, ok := r.Files[from]; ok {
				moved[to] = id
				delete(r.Files, from)
			}
		}
		for to, id := range moved {
			r.Files[to] = id
		}
		return true
	})
}

// ownsOpen reports whether the open file f at path, in the log directory
// dir, is one the gauntlet wrote and may write over (not adopted).
func (o *ownership) ownsOpen(dir, path string, f *os.File) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	id, ok := o.files[o.place.path(rel)]
	if !ok || id.Adopted {
		return false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	return id.matches(f)
}

// Rotate moves the file name of the log directory dir to backup (both
// names at its root), replacing what is there, when the gauntlet wrote
// both (or backup is missing); otherwise it leaves both and says why.
func Rotate(dir, name, backup string) error {
	root, err := openRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	o := readOwnership(dir)
	if !o.owns(root, name) {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), errNotWritten)
	}
	if _, err := root.Lstat(backup); err == nil && !o.owns(root, backup) {
		return fmt.Errorf("%s: %w", filepath.Join(dir, backup), errNotWritten)
	}
	if o.owns(root, backup) && o.adopted(backup) {
		if _, err := aside(root, o, backup); err != nil {
			return err
		}
	}
	if err := root.Rename(name, backup); err != nil {
		return err
	}
	o.move(name, backup)
	return o.save()
}

// Owned reports whether the file at path, in a log directory, may be
// written over or deleted by the gauntlet: nothing is there, or the
// gauntlet wrote it (the record holds it as it is now, not adopted; where
// the record does not know the log directory, the adoption rule would
// take it, not adopted: an execution state or a legacy session reference).
func Owned(path string) bool {
	fi, err := lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	root, err := openRoot(filepath.Dir(path))
	if err != nil {
		return false
	}
	defer root.Close()
	f, err := openFileIn(root, filepath.Base(path))
	if err != nil {
		return false
	}
	defer f.Close()
	return readOwnership(logDirOf(path)).ownsOpen(logDirOf(path), path, f)
}
