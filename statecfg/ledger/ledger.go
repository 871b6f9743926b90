// Package ledger is a content-addressed store of small JSON records that
// outlive runs, logs and branches: the result cache's proofs that a gate
// passed on some exact input, and reviewers' answers. A record is found by
// its key (any string: the canonical text of everything the result depends
// on); its file is named by the key's SHA-256 and holds the key itself, so
// a record is only ever returned for the exact key it was written for. A
// large value that needs no encoding (the changes memo's path lists) is
// stored raw after a JSON header line (PutRaw, GetRaw), under the same
// checks.
//
// The store is safe for concurrent use by any number of processes: records
// are written atomically (a temporary file renamed over the record), never
// modified in place, and reading one that is missing, torn, truncated,
// edited or written for another key is a miss, never an error. The store is
// bounded in size: Sweep removes the least recently used records (a hit
// refreshes a record's modification time) once the total is over the bound.
package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Format is the version of the record format; records of another format
// are misses.
const Format = 1

// DefaultMaxBytes bounds the store when no bound is configured.
const DefaultMaxBytes int64 = 64 << 20

// MaxRecordBytes bounds one record: a larger value is not stored, a larger
// file is a miss.
const MaxRecordBytes = 4 << 20

// ext is the file name extension of records.
const ext = ".json"

// tmpGrace is how old a temporary file of a writer must be before Sweep
// takes it for the leftover of a writer that died.
const tmpGrace = time.Hour

// ErrCorrupt is wrapped by the reason Get gives for a record that exists
// but cannot be used.
var ErrCorrupt = errors.New("unusable record (a miss)")

// Ledger is one store directory, dir, below root.
type Ledger struct {
	root, dir string
	maxBytes  int64
	now       func() time.Time
}

// Open returns the store in the directory rel below root (the git common
// directory, which the caller trusts), bounded to maxBytes
// (DefaultMaxBytes when not positive). Nothing is created before the
// first Put. Every directory between root and the store is made or
// checked without following a symbolic link (statecfg/kit/owned): a link
// planted there is refused, never written through nor emptied.
func Open(root, rel string, maxBytes int64) *Ledger {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Ledger{root: root, dir: filepath.Join(root, rel), maxBytes: maxBytes, now: time.Now}
}

// makeDir makes the store's directory, refusing a link on the way.
func (l *Ledger) makeDir() error {
	rel, err := filepath.Rel(l.root, l.dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", l.dir, err)
	}
	return owned.MkdirAll(l.root, rel, 0o755)
}

// Dir is the store's directory.
func (l *Ledger) Dir() string { return l.dir }

// record is the file format of one record.
type record struct {
	Format int `json:"format"`
	// Key is the exact key the record was written for.
	Key string `json:"key"`
	// StoredAt is when the record was written.
	StoredAt time.Time `json:"stored_at"`
	// Sum is the SHA-256 of Value, so that an edited or damaged value that
	// still parses is a miss too.
	Sum   string          `json:"sum"`
	Value json.RawMessage `json:"value"`
}

// Name is the file name of the record of key.
func Name(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + ext
}

// path is the file of the record of key.
func (l *Ledger) path(key string) string { return filepath.Join(l.dir, Name(key)) }

// Get decodes the record of key into v and returns when it was stored. ok
// is false for a miss; why then says what made an existing record unusable
// (nil when there was none), for diagnostics only: a miss is never an
// error. A hit marks the record as recently used.
func (l *Ledger) Get(key string, v any) (stored time.Time, ok bool, why error) {
	p := l.path(key)
	data, err := l.read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	rec, err := decode(data, key)
	if err == nil {
		err = json.Unmarshal(rec.Value, v)
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%s: %w: %v", p, ErrCorrupt, err)
	}
	l.touch(p) // least recently used: a hit is a use
	return rec.StoredAt, true, nil
}

// decode parses the file content of a record and checks it was written,
// whole, for key.
func decode(data []byte, key string) (record, error) {
	var rec record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return record{}, fmt.Errorf("not a record: %v", err)
	}
	if dec.More() {
		return record{}, errors.New("not a record: data after the record")
	}
	switch {
	case rec.Format != Format:
		return record{}, fmt.Errorf("format %d, want %d", rec.Format, Format)
	case rec.Key != key:
		return record{}, errors.New("written for another key")
	case rec.Sum != sum(rec.Value):
		return record{}, errors.New("value does not match its checksum")
	case rec.StoredAt.IsZero():
		return record{}, errors.New("no stored_at")
	}
	return rec, nil
}

// sum is the hex SHA-256 of a value.
func sum(v []byte) string {
	s := sha256.Sum256(v)
	return hex.EncodeToString(s[:])
}

// Put stores v as the record of key, atomically, replacing any record of
// the same key.
func (l *Ledger) Put(key string, v any) error {
	value, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode cache record: %w", err)
	}
	data, err := json.Marshal(record{Format: Format, Key: key, StoredAt: l.now().UTC(), Sum: sum(value), Value: value})
	if err != nil {
		return fmt.Errorf("encode cache record: %w", err)
	}
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("cache record of %d bytes is over the limit of %d", len(data), MaxRecordBytes)
	}
	if err := l.makeDir(); err != nil {
		return err
	}
	return atomicfile.Write(l.path(key), append(data, '\n'), 0o644)
}

// rawHeader is the first line of a raw record (PutRaw): record without
// its value, and the value's length. Its file is that line, a newline,
// the value's bytes and a newline.
type rawHeader struct {
	Format   int       `json:"format"`
	Key      string    `json:"key"`
	StoredAt time.Time `json:"stored_at"`
	// Sum is the SHA-256 of the value, as in record.
	Sum string `json:"sum"`
	// Raw is the value's length in bytes.
	Raw int `json:"raw"`
}

// PutRaw stores value, bytes that need no encoding, as the record of key,
// as Put does; GetRaw returns them. Reading such a record costs one
// checksum of the value, not the two scans and the unquoting of a JSON
// string that Get makes of a large value. A key is read back the way it
// was stored: Get misses a raw record, GetRaw a JSON one.
func (l *Ledger) PutRaw(key string, value []byte) error {
	head, err := json.Marshal(rawHeader{Format: Format, Key: key, StoredAt: l.now().UTC(), Sum: sum(value), Raw: len(value)})
	if err != nil {
		return fmt.Errorf("encode cache record: %w", err)
	}
	n := len(head) + 1 + len(value) + 1
	if n > MaxRecordBytes {
		return fmt.Errorf("cache record of %d bytes is over the limit of %d", n, MaxRecordBytes)
	}
	data := make([]byte, 0, n)
	data = append(append(append(append(data, head...), '\n'), value...), '\n')
	if err := l.makeDir(); err != nil {
		return err
	}
	return atomicfile.Write(l.path(key), data, 0o644)
}

// GetRaw returns the value PutRaw stored for key and when, with Get's
// misses: ok is false for a miss, and why says what made an existing
// record unusable. A hit marks the record as recently used.
func (l *Ledger) GetRaw(key string) (value []byte, stored time.Time, ok bool, why error) {
	p := l.path(key)
	data, err := l.read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, false, nil
	}
	if err == nil {
		value, stored, err = decodeRaw(data, key)
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("%s: %w: %v", p, ErrCorrupt, err)
	}
	l.touch(p)
	return value, stored, true, nil
}

// read reads the record file p, in a store directory reached without a
// link.
func (l *Ledger) read(p string) ([]byte, error) {
	if err := owned.CheckDir(l.root, l.dir); err != nil {
		return nil, err
	}
	return fsread.File(p, MaxRecordBytes)
}

// touch marks the record file p as used now, when it is a regular file
// (never what a link there points to).
func (l *Ledger) touch(p string) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		now := l.now()
		_ = os.Chtimes(p, now, now)
	}
}

// decodeRaw parses the file content of a raw record and checks it was
// written, whole, for key.
func decodeRaw(data []byte, key string) ([]byte, time.Time, error) {
	line, rest, found := bytes.Cut(data, []byte{'\n'})
	if !found {
		return nil, time.Time{}, errors.New("not a raw record: no header line")
	}
	var h rawHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, time.Time{}, fmt.Errorf("not a raw record: %v", err)
	}
	if dec.More() {
		return nil, time.Time{}, errors.New("not a raw record: data after the header")
	}
	value, end := rest[:max(len(rest)-1, 0)], rest[max(len(rest)-1, 0):]
	switch {
	case h.Format != Format:
		return nil, time.Time{}, fmt.Errorf("format %d, want %d", h.Format, Format)
	case h.Key != key:
		return nil, time.Time{}, errors.New("written for another key")
	case h.Raw != len(value) || string(end) != "\n":
		return nil, time.Time{}, fmt.Errorf("value of %d bytes, want %d and a newline", len(rest), h.Raw)
	case h.Sum != sum(value):
		return nil, time.Time{}, errors.New("value does not match its checksum")
	case h.StoredAt.IsZero():
		return nil, time.Time{}, errors.New("no stored_at")
	}
	return value, h.StoredAt, nil
}

// entry is one file of the store seen by Sweep.
type entry struct {
	name string
	size int64
	used time.Time
}

// list returns the records and the temporary files of the store.
func (l *Ledger) list() (records, temps []entry, err error) {
	if err := owned.CheckDir(l.root, l.dir); err != nil {
		return nil, nil, err
	}
	des, err := fsread.Dir(l.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, de := range des {
		name := de.Name()
		isRecord := isRecordName(name)
		isTemp := strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
		if !isRecord && !isTemp {
			continue // not ours: left alone
		}
		fi, err := de.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue // gone meanwhile, or not a file we wrote
		}
		e := entry{name: name, size: fi.Size(), used: fi.ModTime()}
		if isRecord {
			records = append(records, e)
		} else {
			temps = append(temps, e)
		}
	}
	return records, temps, nil
}

// isRecordName reports whether name is a record's file name: 64 lower-case
// hex digits and the extension.
func isRecordName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, ext)
	if !ok || len(hexPart) != sha256.Size*2 {
		return false
	}
	for _, c := range hexPart {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Sweep bounds the store: when its records take more than the bound, the
// least recently used are removed until they take at most three quarters of
// it. Temporary files left by writers that died are removed too. It
// returns how many records it removed. Records removed by another process
// meanwhile are not an error.
func (l *Ledger) Sweep() (int, error) {
	records, temps, err := l.list()
	if err != nil {
		return 0, fmt.Errorf("sweep result cache: %w", err)
	}
	l.removeLeftovers(temps)
	var total int64
	for _, r := range records {
		total += r.size
	}
	if total <= l.maxBytes {
		return 0, nil
	}
	slices.SortFunc(records, func(a, b entry) int {
		if c := a.used.Compare(b.used); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	target := l.maxBytes / 4 * 3
	removed := 0
	for _, r := range records {
		if total <= target {
			break
		}
		err := os.Remove(owned.Via(filepath.Join(l.dir, r.name)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("sweep result cache: %w", err)
		}
		total -= r.size
		removed++
	}
	return removed, nil
}

// Clear removes every record of the store (and the leftovers of writers
// that died) and returns how many records it removed. Files that are not
// the store's, and the temporary files of writers at work, are left alone.
func (l *Ledger) Clear() (int, error) {
	records, temps, err := l.list()
	if err != nil {
		return 0, fmt.Errorf("clear result cache: %w", err)
	}
	l.removeLeftovers(temps)
	removed := 0
	for _, e := range records {
		err := os.Remove(owned.Via(filepath.Join(l.dir, e.name)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("clear result cache: %w", err)
		}
		if err == nil {
			removed++
		}
	}
	return removed, nil
}

// removeLeftovers removes the temporary files older than tmpGrace: those of
// writers that died before renaming them.
func (l *Ledger) removeLeftovers(temps []entry) {
	now := l.now()
	for _, t := range temps {
		if now.Sub(t.used) > tmpGrace {
			_ = os.Remove(owned.Via(filepath.Join(l.dir, t.name)))
		}
	}
}

// Stats are the size of a store.
type Stats struct {
	Records int
	Bytes   int64
}

// Stats counts the records of the store and their size.
func (l *Ledger) Stats() (Stats, error) {
	records, _, err := l.list()
	if err != nil {
		return Stats{}, fmt.Errorf("read result cache: %w", err)
	}
	var s Stats
	for _, r := range records {
		s.Records++
		s.Bytes += r.size
	}
	return s, nil
}
