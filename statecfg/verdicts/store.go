package verdicts

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// format is the version of the book's file format.
const format = 1

// ErrUnusable is matched by Read's error for a book that exists but cannot
// be used (torn, edited into nonsense, another place's, another format).
var ErrUnusable = errors.New("unusable verdict record")

// onDisk is the file layout of a book.
type onDisk struct {
	Format   int    `json:"format"`
	Project  string `json:"project"`
	Worktree string `json:"worktree"`
	*Book
}

// Path is the book's file.
func (k Key) Path() string {
	return store.Open(k.CommonDir, Kind).Path(k.Project, k.Worktree)
}

// Read returns the book of k: nil and no error when there is none; an
// error wrapping ErrUnusable, naming the file, when one exists that cannot
// be used, or was deleted (its lock file, which Update leaves, is there):
// never read as "nothing pending".
func Read(k Key) (*Book, error) {
	_, lockErr := os.Lstat(k.Path() + ".lock")
	return read(k, lockErr == nil)
}

// read is Read, told whether the book's lock file was there before.
func read(k Key, locked bool) (*Book, error) {
	path := k.Path()
	data, err := fsread.File(path, MaxBookBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr != nil {
			if locked {
				return nil, fmt.Errorf("%w %s: deleted (it was written before)", ErrUnusable, path)
			}
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrUnusable, path, err)
	}
	b, why := decode(data, k)
	if why != "" {
		return nil, fmt.Errorf("%w %s: %s", ErrUnusable, path, why)
	}
	return b, nil
}

// decode parses a book written for k; why says what is wrong.
func decode(data []byte, k Key) (*Book, string) {
	d := onDisk{Book: newBook()}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, "not a verdict record (" + err.Error() + ")"
	}
	switch {
	case dec.More():
		return nil, "not a verdict record (data after it)"
	case d.Format != format:
		return nil, fmt.Sprintf("format %d, want %d", d.Format, format)
	case d.Project != k.Project || d.Worktree != k.Worktree:
		return nil, fmt.Sprintf("written for project %q in work tree %q", d.Project, d.Worktree)
	case d.Book == nil:
		return nil, "no verdicts"
	}
	if d.Checks == nil {
		d.Checks = map[string]CheckVerdict{}
	}
	if d.Slots == nil {
		d.Slots = map[string]map[int]SlotVerdict{}
	}
	return d.Book, ""
}

// Update reads the book of k (an empty one when there is none), calls
// change with it, and writes it back atomically when change returns nil,
// all under an exclusive lock of the book, so that concurrent writers never
// lose each other's verdicts. A book that exists but cannot be used is
// handed over empty with Book.Damaged saying why (and replaced): the caller
// rebuilds it (Seed) and tells the person. A book over MaxBookBytes is not
// written (ErrTooLarge).
func Update(k Key, change func(b *Book) error) error {
	path := k.Path()
	if err := store.Open(k.CommonDir, Kind).MakeDir(k.Project, k.Worktree); err != nil {
		return fmt.Errorf("record verdicts: %w", err)
	}
	_, lockErr := os.Lstat(owned.Via(path + ".lock"))
	lf, err := os.OpenFile(owned.Via(path+".lock"), os.O_CREATE|os.O_RDWR|owned.NoFollow, 0o644)
	if err != nil {
		return fmt.Errorf("record verdicts: %w", err)
	}
	defer lf.Close()
	if err := filelock.Lock(lf); err != nil {
		return fmt.Errorf("record verdicts: lock %s: %w", path, err)
	}
	defer func() { _ = filelock.Unlock(lf) }()
	b, err := read(k, lockErr == nil)
	switch {
	case err != nil:
		b = newBook()
		b.Damaged = err.Error()
	case b == nil:
		b = newBook()
	}
	id := b.ID
	if err := change(b); err != nil {
		return err
	}
	// A change that writes a whole book held in memory (a run's) keeps
	// the ID of the one on disk: the book is the same one.
	b.ID = cmp.Or(b.ID, id, rand.Text())
	data, err := json.MarshalIndent(onDisk{Format: format, Project: k.Project, Worktree: k.Worktree, Book: b}, "", "  ")
	if err != nil {
		return fmt.Errorf("record verdicts: %w", err)
	}
	if len(data) > MaxBookBytes {
		return fmt.Errorf("record verdicts: %w (%d bytes, more than %d)", ErrTooLarge, len(data), MaxBookBytes)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}
