// Package store keeps small JSON records, by name, that must outlive the
// log directory: the agent's skip decisions on review violations
// (runner/internal/decisions). Records found by the exact content of what
// they answer (the result cache, reviewers' answers) are in the ledger
// package, under the same directory. It lives under the repository's git
// common directory (`git rev-parse --git-common-dir`), in
// agent-gauntlet/<kind>/, so that clean, archiving and auto-clean never
// touch it, every worktree of the repository shares it, and nothing shows
// up in `git status`.
//
// A record is one JSON file named by its key's parts (each escaped, so any
// branch name is one safe file name, and shortened with a hash when the
// escaped form is too long for a file name, see fname.Fit). Writes are atomic (a temporary file
// renamed over the record) and serialised per record with an advisory lock;
// a record that does not parse is treated as absent (and replaced by the
// next write), never as an error that stops a run.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fname"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Dir is the store's directory inside the git common directory.
const Dir = "agent-gauntlet"

// maxRecord bounds the size of a record read.
const maxRecord = 8 << 20

// ErrCorrupt is wrapped by Read's error for a record that exists but does
// not parse; the record reads as absent.
var ErrCorrupt = errors.New("corrupt record (ignored)")

// maxPart bounds the file name of a key's part: the record's name with
// ".json" and the temporary name an atomic write gives it first
// (".<name>.<random>.tmp") stay within fname.MaxBytes.
const maxPart = fname.MaxBytes - len(".json") - len("..4294967295.tmp")

// Store is one kind of record (a subdirectory of Dir).
type Store struct {
	root string // the git common directory, which the store is below
	dir  string
}

// Open returns the records of kind (a plain name such as "decisions") in
// the repository whose git common directory is gitCommonDir. Nothing is
// created until the first write.
func Open(gitCommonDir, kind string) Store {
	return Store{root: gitCommonDir, dir: filepath.Join(gitCommonDir, Dir, part(kind))}
}

// MakeDir makes the directory of the record with key, every directory
// between it and the git common directory refused when it is a symbolic
// link or not a directory (owned.MkdirAll): no record is written through
// a link.
func (s Store) MakeDir(key ...string) error {
	dir := filepath.Dir(s.Path(key...))
	rel, err := filepath.Rel(s.root, dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.root, err)
	}
	if err := owned.MkdirAll(s.root, rel, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

// Check refuses the directories between the git common directory and the
// record with key when one of them exists as anything but a directory (a
// symbolic link, wherever it leads; a file): what lies beyond it is not
// the store's, so neither a record read there nor one missing there says
// anything about the gauntlet's own (owned.CheckDir). Without a key, the
// kind's directory is checked. A missing directory is no refusal.
func (s Store) Check(key ...string) error {
	return owned.CheckDir(s.root, filepath.Dir(s.Path(key...)))
}

// Path is the file of the record with key (one or more parts).
func (s Store) Path(key ...string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = part(k)
	}
	return filepath.Join(s.dir, filepath.Join(parts...)+".json")
}

// Read decodes the record key into v. It returns false when the record does
// not exist, and false with an error wrapping ErrCorrupt when it exists but
// cannot be decoded (v is then left as it was: callers treat it as empty).
func (s Store) Read(v any, key ...string) (bool, error) {
	p := s.Path(key...)
	data, err := readBounded(owned.Via(p))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w: %v", p, ErrCorrupt, err)
	}
	return true, nil
}

// readBounded reads a regular file of at most maxRecord bytes.
func readBounded(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxRecord {
		return nil, fmt.Errorf("not a regular file of at most %d bytes", maxRecord)
	}
	return os.ReadFile(p)
}

// Update reads the record key into v (left as it is when the record is
// missing or corrupt), calls change, and writes v back atomically when
// change returns true, all under an exclusive lock on the record, so that
// concurrent updates of one record never lose each other's changes.
func (s Store) Update(v any, change func() (bool, error), key ...string) error {
	return s.update(v, change, atomicfile.WriteJSON, key)
}

// UpdateUnsynced is Update writing the record without a disk flush (see
// atomicfile.WriteUnsynced): for records whose loss in a system crash is
// harmless, written often.
func (s Store) UpdateUnsynced(v any, change func() (bool, error), key ...string) error {
	return s.update(v, change, atomicfile.WriteJSONUnsynced, key)
}

// update is Update, writing with write.
func (s Store) update(v any, change func() (bool, error), write func(string, any, os.FileMode) error, key []string) error {
	p := s.Path(key...)
	if err := s.MakeDir(key...); err != nil {
		return err
	}
	lf, err := os.OpenFile(owned.Via(p+".lock"), os.O_CREATE|os.O_RDWR|owned.NoFollow, 0o644)
	if err != nil {
		return fmt.Errorf("lock %s: %w", p, err)
	}
	defer lf.Close()
	if err := filelock.Lock(lf); err != nil {
		return fmt.Errorf("lock %s: %w", p, err)
	}
	defer func() { _ = filelock.Unlock(lf) }() // closing would release it too
	if _, err := s.Read(v, key...); err != nil && !errors.Is(err, ErrCorrupt) {
		return err
	}
	changed, err := change()
	if err != nil || !changed {
		return err
	}
	return write(p, v, 0o644)
}

// part is the file name of one part of a key: escaped, and fitted to
// maxPart bytes.
func part(s string) string { return fname.Fit(escape(s), s, maxPart) }

// escape makes s one file name: letters, digits, '-' and '_' stay, every
// other byte (a '/' of a branch name, '.', '%', a space) becomes %XX, and
// the empty string is "%00" (no two strings share a name, none is hidden).
func escape(s string) string {
	if s == "" {
		return "%00"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
