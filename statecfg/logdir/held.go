package logdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// What a review JSON file held when the gauntlet wrote it. The agent marks
// violations in the file (update-review, or by hand), but only a violation
// the gauntlet put there was ever reported to it: the record keeps, with
// the file, a key of each entry the gauntlet wrote (EntryKey), so that a
// mark on an entry the agent added or reworded, in that file or in one it
// planted, marks nothing. A review JSON adopted as an earlier run's (see
// start: the TypeScript tool's, or an older version's) holds the entries it
// held when adopted.

// maxHeldRead bounds what is read of a review JSON to learn the entries it
// holds (it holds a reviewer's whole output).
const maxHeldRead = 64 << 20

// EntryKey is the key of one entry of a review JSON file: its id, file,
// line (a JSON number or string, as written or read back) and issue.
func EntryKey(id, file string, line any, issue string) string {
	d := sha256.New()
	for _, s := range []string{strings.TrimSpace(id), file, lineKey(line), issue} {
		d.Write([]byte(s))
		d.Write([]byte{0})
	}
	return hex.EncodeToString(d.Sum(nil))[:24]
}

// lineKey is a line as EntryKey takes it: an integral number as its
// decimal digits, whatever its Go type, a string trimmed.
func lineKey(line any) string {
	switch l := line.(type) {
	case nil:
		return ""
	case int:
		return strconv.Itoa(l)
	case int64:
		return strconv.FormatInt(l, 10)
	case float64:
		if l == float64(int64(l)) {
			return strconv.FormatInt(int64(l), 10)
		}
		return strconv.FormatFloat(l, 'g', -1, 64)
	case json.Number:
		return lineKey(jsonNumber(l))
	case string:
		return strings.TrimSpace(l)
	}
	data, _ := json.Marshal(line)
	return string(data)
}

// jsonNumber is n as a float64 when it parses, else its text.
func jsonNumber(n json.Number) any {
	if f, err := n.Float64(); err == nil {
		return f
	}
	return n.String()
}

// NoteReview records the review JSON file at path as one the gauntlet
// wrote, holding the entries whose keys (EntryKey) are held: Note for a
// file the agent edits, with what it was told.
func NoteReview(path string, held []string) error {
	return note(path, true, func(id *fileID, _ fileID, _ bool) {
		id.Held, id.HeldKnown = held, true
	})
}

// carryHeld keeps, for an edited file noted again (a rewrite of its marks:
// update-review), the entries the record held before: only the gauntlet's
// writer of the file tells what it held.
func carryHeld(id *fileID, prev fileID, had bool) {
	if had && id.Edited && prev.Edited {
		id.Held, id.HeldKnown = prev.Held, prev.HeldKnown
	}
}

// holdsHeld reports whether the open file f is still the review JSON the
// gauntlet wrote with the entries held, as far as its path alone cannot
// tell (the agent edits it, and its editors write a new file): a review
// JSON object holding one of them at least, or, when the gauntlet wrote
// none, one with a "violations" field (null when it wrote none). Another file at that name (a
// person's, put there after the gauntlet's was deleted) is not the
// gauntlet's to move or delete.
func holdsHeld(f fs.File, held []string) bool {
	data, err := io.ReadAll(io.LimitReader(f, maxHeldRead))
	if err != nil {
		return false
	}
	if len(held) == 0 {
		var fields map[string]json.RawMessage
		if json.Unmarshal(data, &fields) != nil {
			return false
		}
		_, listed := fields["violations"]
		return listed
	}
	keys, ok := entryKeys(data)
	if !ok {
		return false
	}
	for _, k := range keys {
		if slices.Contains(held, k) {
			return true
		}
	}
	return false
}

// heldEntries reads the keys of the entries of the review JSON file at
// path, for a file adopted as an earlier run's; false when it cannot be
// read as one.
func heldEntries(path string) ([]string, bool) {
	data, err := fsread.File(owned.Via(path), maxHeldRead)
	if err != nil {
		return nil, false
	}
	return entryKeys(data)
}

// entryKeys are the keys of the entries of a review JSON file's data;
// false when it is no JSON object.
func entryKeys(data []byte) ([]string, bool) {
	var f struct {
		Violations []json.RawMessage `json:"violations"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil, false
	}
	out := make([]string, 0, len(f.Violations))
	for _, raw := range f.Violations {
		var e struct {
			ID    string `json:"id"`
			File  string `json:"file"`
			Line  any    `json:"line"`
			Issue string `json:"issue"`
		}
		if json.Unmarshal(raw, &e) == nil {
			out = append(out, EntryKey(e.ID, e.File, e.Line, e.Issue))
		}
	}
	return out, true
}

// isSlotJSON reports whether name is a review JSON file's.
func isSlotJSON(name string) bool {
	n, ok := ParseName(name)
	return ok && n.Kind == KindSlotJSON && n.IsOwn()
}

// Held tells what the gauntlet knows of the review JSON file at path, in a
// log directory (its root, previous/ or commit/): wrote is false for a file
// it neither wrote nor adopted as an earlier run's (one the agent added);
// keys are the entries it held then (EntryKey), nil when that is not known
// (the record was made by a version that kept no entries, or there is no
// repository around the log directory to keep a record in). A log
// directory the record does not know is judged by the rule of adoption
// (see start), as Clean judges it: a file no run can have written is not
// the gauntlet's; unless earlier tells that it may be an earlier tool's
// (one no person trusted this version in), and a run ended there: then
// every file is taken as that tool's, entries unknown, since the agent
// marked them after its run.
func Held(path string, earlier bool) (keys map[string]bool, wrote bool) {
	if fi, err := lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	dir := logDirOf(path)
	if _, ok := locateRecord(dir); !ok {
		return nil, true // no record can be kept: as before there was one
	}
	o := readOwnership(dir)
	if _, ended := lastRunEnd(dir); !o.known && earlier && ended {
		return nil, true
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return nil, false
	}
	id, ok := o.files[o.place.path(rel)]
	if !ok {
		return nil, false
	}
	if !id.HeldKnown {
		return nil, true
	}
	keys = make(map[string]bool, len(id.Held))
	for _, k := range id.Held {
		keys[k] = true
	}
	return keys, true
}
