// Package gitindex reads and writes git's index file (the staging area's
// binary format): versions 2, 3 and 4
// are read, SHA-1 and SHA-256 alike; versions 2 and 3 are written, without
// extensions (git rebuilds the cache tree it needs), through git's own lock
// file. The runner's snapshots merge their index from the user's in Go
// (git has no command that clears every entry's flags or says which cached
// file stats to trust), and the configuration asks it which files git
// tracks without starting git.
package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Index entry flags (the 16-bit flags word and the version 3 extended one).
const (
	FlagAssumeValid   = 0x8000
	FlagExtended      = 0x4000
	flagStageMask     = 0x3000
	flagNameMask      = 0x0fff
	XFlagSkipWorktree = 0x4000
	XFlagIntentToAdd  = 0x2000
)

// Entry modes of interest.
const (
	ModeGitlink = 0o160000
	ModeSymlink = 0o120000
	ModeDir     = 0o040000
)

// Entry is one entry of an index file.
type Entry struct {
	// Stat is ctime (s, ns), mtime (s, ns), dev, ino as git cached them,
	// then uid, gid and size: every field but the mode.
	Stat [9]uint32
	Mode uint32
	OID  []byte
	// Flags and XFlags are the entry's flags words (the name length and
	// stage included); XFlags only in an extended entry.
	Flags, XFlags uint16
	Path          string
}

// RacyMargin is how much older than a look at a file its change and
// modification times must be for a stat cached by that look to tell a
// later change (filestat.RacyMargin, the one bound of every stat-keyed
// memo). A file changed later than that bound may change again with every
// time as it was cached (its modification time and size can be put back
// by anyone who writes it; its change time moves, but perhaps not to
// another second).
const RacyMargin = filestat.RacyMargin

// ChangedSince reports whether e's cached change or modification time is
// no earlier than mark: then the cached stat cannot tell a later change
// (see RacyMargin).
func (e *Entry) ChangedSince(mark time.Time) bool {
	ctime := time.Unix(int64(e.Stat[0]), int64(e.Stat[1]))
	mtime := time.Unix(int64(e.Stat[2]), int64(e.Stat[3]))
	return !ctime.Before(mark) || !mtime.Before(mark)
}

// Stage is the merge stage of e (0 outside a conflict).
func (e *Entry) Stage() int { return int(e.Flags&flagStageMask) >> 12 }

// SkipWorktree reports whether e carries the skip-worktree flag.
func (e *Entry) SkipWorktree() bool {
	return e.Flags&FlagExtended != 0 && e.XFlags&XFlagSkipWorktree != 0
}

// IntentToAdd reports whether e is an intent-to-add entry (`git add -N`).
func (e *Entry) IntentToAdd() bool {
	return e.Flags&FlagExtended != 0 && e.XFlags&XFlagIntentToAdd != 0
}

// File is a parsed index file.
type File struct {
	Version uint32
	// HashSize is the size of an object id (20 for SHA-1, 32 for SHA-256).
	HashSize int
	Entries  []Entry
	// Extensions are the signatures of the extensions it holds.
	Extensions []string
}

// ErrFormat is wrapped by every error about a file that is not an index
// as git writes one.
var ErrFormat = errors.New("index format")

// maxFile bounds the index file read: 1 GiB, far above git's largest.
// It is read through fsread: an index that is no regular file (a FIFO,
// which a plain read would wait on forever) is an error at once.
const maxFile = 1 << 30

// Read reads and parses the index file p (see Parse).
func Read(p string) (*File, error) {
	data, err := fsread.File(p, maxFile)
	if err != nil {
		return nil, err
	}
	idx, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return idx, nil
}

// Parse parses an index file's content. The object id size is the one
// for which the trailing checksum matches (SHA-1, then SHA-256); an index
// whose checksum is zeros (index.skipHash) is taken for SHA-1 when it parses
// as such.
func Parse(data []byte) (*File, error) {
	var firstErr error
	for _, size := range []int{sha1.Size, sha256.Size} {
		idx, err := parseHash(data, size)
		if err == nil {
			return idx, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// NewHash returns the hash of object ids of size bytes.
func NewHash(size int) hash.Hash {
	if size == sha256.Size {
		return sha256.New()
	}
	return sha1.New()
}

// parseHash parses data as an index whose object ids have size bytes.
func parseHash(data []byte, size int) (*File, error) {
	body, version, n, err := checkHeader(data, size)
	if err != nil {
		return nil, err
	}
	idx := &File{Version: version, HashSize: size}
	off := 12
	prev := ""
	idx.Entries = make([]Entry, 0, min(int(n), len(body)/62))
	for i := uint32(0); i < n; i++ {
		e, next, err := parseEntry(body, off, size, idx.Version, prev)
		if err != nil {
			return nil, err
		}
		idx.Entries = append(idx.Entries, e)
		off, prev = next, e.Path
	}
	idx.Extensions, err = extensionsFrom(body, off)
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// checkHeader checks the header and the trailing checksum of the index
// content data whose object ids have size bytes, and returns the content
// before the checksum, the version and the number of entries.
func checkHeader(data []byte, size int) (body []byte, version, n uint32, err error) {
	if len(data) < 12+size || string(data[:4]) != "DIRC" {
		return nil, 0, 0, fmt.Errorf("%w: no index header", ErrFormat)
	}
	body, sum := data[:len(data)-size], data[len(data)-size:]
	if !allZero(sum) {
		h := NewHash(size)
		h.Write(body)
		if !bytes.Equal(h.Sum(nil), sum) {
			return nil, 0, 0, fmt.Errorf("%w: checksum mismatch", ErrFormat)
		}
	} else if size != sha1.Size {
		return nil, 0, 0, fmt.Errorf("%w: unhashed index", ErrFormat)
	}
	version = binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, 0, 0, fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	return body, version, binary.BigEndian.Uint32(data[8:12]), nil
}

// extensionsFrom returns the signatures of the extensions that fill body
// from off, where the entries end.
func extensionsFrom(body []byte, off int) ([]string, error) {
	var sigs []string
	for off < len(body) {
		if off+8 > len(body) {
			return nil, fmt.Errorf("%w: truncated extension", ErrFormat)
		}
		sig := string(body[off : off+4])
		n := int(binary.BigEndian.Uint32(body[off+4 : off+8]))
		if n < 0 || off+8+n > len(body) {
			return nil, fmt.Errorf("%w: extension %q overruns the file", ErrFormat, sig)
		}
		sigs = append(sigs, sig)
		off += 8 + n
	}
	return sigs, nil
}

// parseEntry parses the entry at off and returns it and where the next
// one starts.
func parseEntry(body []byte, off, size int, version uint32, prev string) (Entry, int, error) {
	var e Entry
	fixed := 40 + size + 2
	if off+fixed > len(body) {
		return e, 0, fmt.Errorf("%w: truncated entry", ErrFormat)
	}
	start := off
	for i := 0; i < 6; i++ {
		e.Stat[i] = binary.BigEndian.Uint32(body[off+4*i:])
	}
	e.Mode = binary.BigEndian.Uint32(body[off+24:])
	for i, j := 6, 28; i < 9; i, j = i+1, j+4 {
		e.Stat[i] = binary.BigEndian.Uint32(body[off+j:])
	}
	off += 40
	e.OID = slices.Clone(body[off : off+size])
	off += size
	e.Flags = binary.BigEndian.Uint16(body[off:])
	off += 2
	if e.Flags&FlagExtended != 0 {
		if version < 3 || off+2 > len(body) {
			return e, 0, fmt.Errorf("%w: extended flags in version %d", ErrFormat, version)
		}
		e.XFlags = binary.BigEndian.Uint16(body[off:])
		off += 2
	}
	if version == 4 {
		strip, n := offsetVarint(body[off:])
		if n <= 0 || strip > uint64(len(prev)) {
			return e, 0, fmt.Errorf("%w: bad path prefix", ErrFormat)
		}
		off += n
		end := bytes.IndexByte(body[off:], 0)
		if end < 0 {
			return e, 0, fmt.Errorf("%w: unterminated path", ErrFormat)
		}
		e.Path = prev[:len(prev)-int(strip)] + string(body[off:off+end])
		return e, off + end + 1, nil
	}
	end := bytes.IndexByte(body[off:], 0)
	if end < 0 {
		return e, 0, fmt.Errorf("%w: unterminated path", ErrFormat)
	}
	e.Path = string(body[off : off+end])
	// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
	next := start + (off+end-start+8)&^7
	if next > len(body) {
		return e, 0, fmt.Errorf("%w: truncated entry padding", ErrFormat)
	}
	return e, next, nil
}

// FirstWithPrefix returns the first path of the index content data that
// starts with prefix ("" for any; "" when none does) and the signatures
// of its extensions, or the error Parse returns for data. It reads what
// Parse reads, checksum and every entry included, but keeps nothing of an
// entry: no object id, no path string. An index whose paths are not in
// git's order (which git refuses) is an error here.
func FirstWithPrefix(data []byte, prefix string) (path string, extensions []string, err error) {
	var firstErr error
	for _, size := range []int{sha1.Size, sha256.Size} {
		path, extensions, err := firstWithPrefix(data, size, prefix)
		if err == nil {
			return path, extensions, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", nil, firstErr
}

// firstWithPrefix is FirstWithPrefix for object ids of size bytes.
func firstWithPrefix(data []byte, size int, prefix string) (string, []string, error) {
	body, version, n, err := checkHeader(data, size)
	if err != nil {
		return "", nil, err
	}
	off := 12
	var cur, prev []byte
	found, done := "", false
	for i := uint32(0); i < n; i++ {
		var next int
		cur, next, err = entryPath(body, off, size, version, prev, cur[:0])
		if err != nil {
			return "", nil, err
		}
		if i > 0 && bytes.Compare(prev, cur) > 0 {
			return "", nil, fmt.Errorf("%w: entries out of order", ErrFormat)
		}
		if !done && string(cur) >= prefix {
			done = true
			if strings.HasPrefix(string(cur), prefix) {
				found = string(cur)
			}
		}
		off = next
		prev, cur = cur, prev
	}
	ext, err := extensionsFrom(body, off)
	return found, ext, err
}

// entryPath returns the path of the entry at off (appended to buf; prev
// is the path of the entry before it) and where the next entry starts,
// with the errors parseEntry gives.
func entryPath(body []byte, off, size int, version uint32, prev, buf []byte) ([]byte, int, error) {
	fixed := 40 + size + 2
	if off+fixed > len(body) {
		return nil, 0, fmt.Errorf("%w: truncated entry", ErrFormat)
	}
	start := off
	off += 40 + size
	flags := binary.BigEndian.Uint16(body[off:])
	off += 2
	if flags&FlagExtended != 0 {
		if version < 3 || off+2 > len(body) {
			return nil, 0, fmt.Errorf("%w: extended flags in version %d", ErrFormat, version)
		}
		off += 2
	}
	if version == 4 {
		strip, n := offsetVarint(body[off:])
		if n <= 0 || strip > uint64(len(prev)) {
			return nil, 0, fmt.Errorf("%w: bad path prefix", ErrFormat)
		}
		off += n
		end := bytes.IndexByte(body[off:], 0)
		if end < 0 {
			return nil, 0, fmt.Errorf("%w: unterminated path", ErrFormat)
		}
		buf = append(append(buf, prev[:len(prev)-int(strip)]...), body[off:off+end]...)
		return buf, off + end + 1, nil
	}
	end := bytes.IndexByte(body[off:], 0)
	if end < 0 {
		return nil, 0, fmt.Errorf("%w: unterminated path", ErrFormat)
	}
	next := start + (off+end-start+8)&^7
	if next > len(body) {
		return nil, 0, fmt.Errorf("%w: truncated entry padding", ErrFormat)
	}
	return append(buf, body[off:off+end]...), next, nil
}

// offsetVarint decodes git's variable-length integer (varint.c: seven
// bits a byte, most significant first, each continuation adding one) and
// returns it and its length, 0 when it is malformed.
func offsetVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		val++
		if n >= len(b) || val>>57 != 0 {
			return 0, 0
		}
		c = b[n]
		n++
		val = val<<7 + uint64(c&127)
	}
	return val, n
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Encode is the content of an index file (version 2, or 3 when an
// entry has extended flags) holding entries, which must be sorted as git
// sorts them (Compare) and have object ids of hashSize bytes.
func Encode(entries []Entry, hashSize int) []byte {
	version := uint32(2)
	for i := range entries {
		if entries[i].Flags&FlagExtended != 0 {
			version = 3
			break
		}
	}
	var b bytes.Buffer
	b.Grow(12 + len(entries)*(72+hashSize) + hashSize)
	b.WriteString("DIRC")
	var word [4]byte
	put32 := func(v uint32) {
		binary.BigEndian.PutUint32(word[:], v)
		b.Write(word[:])
	}
	put16 := func(v uint16) {
		binary.BigEndian.PutUint16(word[:2], v)
		b.Write(word[:2])
	}
	put32(version)
	put32(uint32(len(entries)))
	for i := range entries {
		e := &entries[i]
		start := b.Len()
		for _, v := range e.Stat[:6] {
			put32(v)
		}
		put32(e.Mode)
		for _, v := range e.Stat[6:] {
			put32(v)
		}
		b.Write(e.OID)
		flags := e.Flags &^ flagNameMask
		flags |= uint16(min(len(e.Path), flagNameMask))
		put16(flags)
		if flags&FlagExtended != 0 {
			put16(e.XFlags)
		}
		b.WriteString(e.Path)
		pad := 8 - (b.Len()-start)%8
		b.Write(make([]byte, pad))
	}
	h := NewHash(hashSize)
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	return b.Bytes()
}

// ErrLocked reports an index whose lock file another process holds.
var ErrLocked = errors.New("index locked")

// Write writes entries (see Encode) to p the way git writes
// an index: into p.lock, created exclusively (so that no git writes p
// meanwhile, and this waits for no git either: ErrLocked), then
// renamed over p.
func Write(p string, entries []Entry, hashSize int) error {
	return writeLocked(p, Encode(entries, hashSize))
}

// writeLocked writes data to p as Write does.
func writeLocked(p string, data []byte) error {
	at := owned.Via(p) // below the store held open (owned.Hold)
	lock := at + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", p, ErrLocked)
	}
	if err != nil {
		return err
	}
	return finishLocked(at, lock, f, data)
}

// finishLocked writes data to f, the lock file lock of p, and renames it
// over p.
func finishLocked(p, lock string, f *os.File, data []byte) error {
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(lock)
		return err
	}
	if err := os.Rename(lock, p); err != nil {
		os.Remove(lock)
		return err
	}
	return nil
}

// Smudge clears, in the index file p, the cached stat of every entry that
// changed since mark (ChangedSince), keeping every other byte (extensions
// included) and the checksum right, and returns how many it cleared. A
// cleared stat matches no file: git reads the file again at its next look
// instead of taking the cached stat's word. The file is rewritten as Write
// writes one (ErrLocked when a git holds its lock), and only when an entry
// was cleared.
func Smudge(p string, mark time.Time) (int, error) {
	data, err := fsread.File(p, maxFile)
	if err != nil {
		return 0, err
	}
	var firstErr error
	for _, size := range []int{sha1.Size, sha256.Size} {
		buf := slices.Clone(data)
		n, err := smudgeHash(buf, size, mark)
		if err == nil {
			if n == 0 {
				return 0, nil
			}
			return n, writeLocked(p, buf)
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return 0, fmt.Errorf("%s: %w", p, firstErr)
}

// smudgeHash clears, in data (an index whose object ids have size bytes),
// the stat of the entries that changed since mark, and sets the checksum
// again; it returns how many it cleared.
func smudgeHash(data []byte, size int, mark time.Time) (int, error) {
	body, version, n, err := checkHeader(data, size)
	if err != nil {
		return 0, err
	}
	cleared := 0
	off, prev := 12, ""
	for i := uint32(0); i < n; i++ {
		e, next, err := parseEntry(body, off, size, version, prev)
		if err != nil {
			return 0, err
		}
		if e.ChangedSince(mark) {
			// every stat word (ctime, mtime, dev, ino) before the mode,
			// and uid, gid, size after it
			clear(data[off : off+24])
			clear(data[off+28 : off+40])
			cleared++
		}
		off, prev = next, e.Path
	}
	if cleared > 0 && !allZero(data[len(body):]) {
		h := NewHash(size)
		h.Write(body)
		copy(data[len(body):], h.Sum(nil))
	}
	return cleared, nil
}

// Compare orders entries as git does: by path bytes, then stage.
func Compare(a, b Entry) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return a.Stage() - b.Stage()
}

// Staged identifies what f stages (path, stage, mode, object id, and the
// flags that change what git compares of each entry), not its cached file
// stats: git rewrites its index to refresh those, which changes none of
// what it stages. The caches git adds or drops as it pleases (TREE, UNTR,
// EOIE, IEOT, REUC...) change nothing either; a split or sparse index,
// which keeps entries elsewhere, is another content.
func (f *File) Staged() string {
	h := sha256.New()
	var word [4]byte
	for i := range f.Entries {
		e := &f.Entries[i]
		binary.BigEndian.PutUint32(word[:], e.Mode)
		h.Write(word[:])
		binary.BigEndian.PutUint16(word[:2], e.Flags&^0x0fff)
		binary.BigEndian.PutUint16(word[2:], e.XFlags)
		h.Write(word[:])
		h.Write(e.OID)
		io.WriteString(h, e.Path+"\x00")
	}
	for _, x := range f.Extensions {
		if x == "link" || x == "sdir" {
			io.WriteString(h, x+"\x00")
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
