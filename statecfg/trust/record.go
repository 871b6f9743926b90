package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// Kind is the store's kind of the trusted configurations: they live in
// <git common dir>/agent-gauntlet/trust/, one file per project place.
const Kind = "trust"

// Bounds of a record: a configuration larger than this is not recorded,
// a file larger than this is not one this package wrote.
const (
	MaxFiles       = 1000
	MaxRecordBytes = 32 << 20
)

// format is the version of the record format; tool names the program
// whose record it is.
const (
	format = 1
	tool   = "agent-gauntlet"
)

// How says how a configuration came to be trusted.
type How string

// The ways a configuration is trusted.
const (
	// HowTerminal: `agent-gauntlet trust`, confirmed on a terminal.
	HowTerminal How = "terminal"
	// HowYes: `agent-gauntlet trust --yes`, without a question.
	HowYes How = "yes"
	// HowInit: written by `agent-gauntlet init`.
	HowInit How = "init"
	// HowHEAD: adopted, for a project that had no record, from the
	// configuration committed at HEAD.
	HowHEAD How = "head"
)

// Describe says how, in words ("confirmed on a terminal").
func (h How) Describe() string {
	switch h {
	case HowTerminal:
		return "confirmed with agent-gauntlet trust on a terminal"
	case HowYes:
		return "recorded with agent-gauntlet trust --yes, without a confirmation"
	case HowInit:
		return "written by agent-gauntlet init"
	case HowHEAD:
		return "adopted from the commit at HEAD"
	}
	return string(h)
}

// known reports a How this package writes.
func (h How) known() bool {
	return h == HowTerminal || h == HowYes || h == HowInit || h == HowHEAD
}

// Record is a project's trusted configuration.
type Record struct {
	// Project is the place's key (place.Place.Project).
	Project string
	// TrustedAt is when it was recorded; How how; Commit the commit HEAD
	// named then (for HowHEAD the commit it was adopted from): the
	// repository's point when a person accepted the gates, where the stop
	// hook starts looking for work committed since. It is EmptyStart for a
	// record made before the first commit (every commit is work since),
	// and "" in records of older versions, which kept none then (and
	// cannot be told from a record made where git could not read HEAD):
	// those name no start point.
	TrustedAt time.Time
	How       How
	Commit    string
	// Files are the trusted files, whole: the gates run from them even
	// when the work tree's .gauntlet/ differs or is gone. No files records
	// that the project has no gates (a .gauntlet/ removed on purpose).
	Files config.Files
	// Others reports that Files hold the other files of .gauntlet/ too
	// (config.ReadFiles): false in records of older versions, which held
	// only the files the loader reads, and are compared on those alone
	// (see Record.Comparable).
	Others bool
	// Entries reports that the other files are held as entries (a link as
	// its target, a file with its mode; see config.TreeEntry): false in
	// records of older versions, which followed links inside .gauntlet/,
	// left out those leading out, and kept no mode.
	Entries bool
}

// EmptyStart is the start point of a record made before the
// repository's first commit: git's empty tree, which every commit
// descends from.
const EmptyStart = gitcmd.EmptyTree

// StartPoint is the commit a stop may take as the point the project's
// work starts from (EmptyStart: every commit is work since): Commit for
// a record a person made, "" for a
// configuration adopted from HEAD (HowHEAD) and for none. An adoption
// anchors nothing: it found the commits it names, no stop judged them
// and no person looked, so a stop with no point of its own still judges
// them or names them as not verified.
func (r *Record) StartPoint() string {
	if r == nil {
		return ""
	}
	return startPoint(r.How, r.Commit)
}

// startPoint is the start point of a record made how at commit (see
// Record.StartPoint).
func startPoint(how How, commit string) string {
	if how == HowHEAD {
		return ""
	}
	return commit
}

// Comparable is the part of a work tree's configuration (read with
// config.ReadFiles, for the project at root) that a record compares with:
// all of it, or for a record of an older version only the files the loader
// reads, so that an upgrade alone never reads as a changed configuration.
func (r *Record) Comparable(root string, work config.Files) config.Files {
	switch {
	case r == nil || r.Others && r.Entries:
		return work
	case r.Others:
		return config.Legacy(work)
	}
	return config.LoadedOnly(root, work)
}

// ErrUnusable is matched (errors.Is) by ReadRecord's error for a record
// that exists but cannot be used: torn, edited, of another project or
// format, not a regular file, too large.
var ErrUnusable = errors.New("unusable trusted configuration record")

// onDisk is the file layout of a record.
type onDisk struct {
	Format    int       `json:"format"`
	Tool      string    `json:"tool"`
	Project   string    `json:"project"`
	TrustedAt time.Time `json:"trusted_at"`
	How       How       `json:"how"`
	Commit    string    `json:"commit,omitempty"`
	Others    bool      `json:"others,omitempty"`
	Entries   bool      `json:"entries,omitempty"`
	// Sum is the SHA-256 of the record without it (see sum): a record
	// damaged or edited anywhere is refused.
	Sum   string     `json:"sum"`
	Files []diskFile `json:"files"`
}

// diskFile is one trusted file; Content is base64 in JSON, so any bytes
// survive.
type diskFile struct {
	Path    string `json:"path"`
	Content []byte `json:"content"`
}

// RecordPath is the file of the record of place.
func RecordPath(p place.Place) string {
	return store.Open(p.CommonDir, Kind).Path(p.Project())
}

// storeRefused says why the records of the repository whose git common
// directory is commonDir (the record of project, or, for "", all of them)
// are not read: a directory on the way to them is a symbolic link or not
// a directory (store.Check); nil when they are read.
func storeRefused(commonDir, project string) error {
	var key []string
	if project != "" {
		key = []string{project}
	}
	err := store.Open(commonDir, Kind).Check(key...)
	var refused *owned.RefusedError
	if errors.As(err, &refused) {
		return fmt.Errorf("%s is %s, not %s: no record is read through it; move it away", fserr.Quote(refused.Path), refused.Kind, refused.Want)
	}
	return err
}

// ReadRecord reads the record of place: nil and no error when there is
// none; an error wrapping ErrUnusable, naming the file and why, when one
// exists that cannot be used. It never mistakes an unusable record for
// "no record", nor for "no gates": a store (or its directory of records)
// replaced by a symbolic link hides whether a record exists, so the
// record is unusable, whatever the link leads to (store.Check).
func ReadRecord(p place.Place) (*Record, error) {
	path := RecordPath(p)
	if err := storeRefused(p.CommonDir, p.Project()); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrUnusable, path, err)
	}
	data, err := fsread.File(path, MaxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr != nil {
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrUnusable, path, err)
	}
	rec, why := decode(data, p.Project())
	if why != "" {
		return nil, fmt.Errorf("%w %s: %s", ErrUnusable, path, why)
	}
	return rec, nil
}

// decode parses a record written for project; why says what is wrong.
func decode(data []byte, project string) (*Record, string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d onDisk
	if err := dec.Decode(&d); err != nil {
		return nil, "not a record (" + err.Error() + ")"
	}
	if dec.More() {
		return nil, "not a record (data after it)"
	}
	switch {
	case d.Tool != tool || d.Format != format:
		return nil, fmt.Sprintf("format %q %d, want %q %d", d.Tool, d.Format, tool, format)
	case d.Project != project:
		return nil, fmt.Sprintf("written for the project %s, not %s", strconv.Quote(d.Project), strconv.Quote(project))
	case d.TrustedAt.IsZero():
		return nil, "no trusted_at"
	case !d.How.known():
		return nil, fmt.Sprintf("unknown how %q", d.How)
	case len(d.Files) > MaxFiles:
		return nil, fmt.Sprintf("%d files, more than %d", len(d.Files), MaxFiles)
	case d.Sum != d.sum():
		return nil, "it does not match its checksum (edited or damaged)"
	}
	files := config.Files{}
	for _, f := range d.Files {
		if _, dup := files[f.Path]; dup {
			return nil, "file " + strconv.Quote(f.Path) + " listed twice"
		}
		files[f.Path] = f.Content
	}
	if err := files.Check(); err != nil {
		return nil, err.Error()
	}
	return &Record{Project: d.Project, TrustedAt: d.TrustedAt, How: d.How, Commit: d.Commit, Files: files, Others: d.Others, Entries: d.Entries}, ""
}

// Digest fingerprints the trusted files, whole, by name (hex SHA-256):
// two records of the same files have the same digest, whoever made them
// and whenever, so that recording them again is no change of the gates.
func (r *Record) Digest() string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		fmt.Fprintf(h, "%d:%s%d:", len(name), name, len(r.Files[name]))
		h.Write(r.Files[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sum is the hex SHA-256 of the record's JSON encoding with Sum empty:
// every field and file is covered.
func (d onDisk) sum() string {
	d.Sum = ""
	data, err := json.Marshal(d)
	if err != nil {
		return "" // never matches a stored sum
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// WriteRecord records rec as the trusted configuration of place,
// atomically (a reader sees the old record or the new one, never a torn
// one), replacing any record there, an unusable one included. rec.Project
// is set from place; its files must be a valid config.Files within the
// bounds, and hold the other files of .gauntlet/ (config.ReadFiles,
// config.UsedFiles), the other files as entries: the record says so
// (Others, Entries).
func WriteRecord(p place.Place, rec Record) error {
	if err := rec.Files.Check(); err != nil {
		return fmt.Errorf("record trusted configuration: %w", err)
	}
	if len(rec.Files) > MaxFiles {
		return fmt.Errorf("record trusted configuration: %d files, more than %d", len(rec.Files), MaxFiles)
	}
	if !rec.How.known() {
		return fmt.Errorf("record trusted configuration: unknown how %q", rec.How)
	}
	d := onDisk{Format: format, Tool: tool, Project: p.Project(), TrustedAt: rec.TrustedAt.UTC(), How: rec.How,
		Commit: rec.Commit, Others: true, Entries: true, Files: []diskFile{}}
	if d.TrustedAt.IsZero() {
		d.TrustedAt = time.Now().UTC()
	}
	for _, path := range sortedPaths(rec.Files) {
		d.Files = append(d.Files, diskFile{Path: path, Content: rec.Files[path]})
	}
	d.Sum = d.sum()
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("record trusted configuration: %w", err)
	}
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("record trusted configuration: %d bytes, more than %d", len(data), MaxRecordBytes)
	}
	path := RecordPath(p)
	if err := store.Open(p.CommonDir, Kind).MakeDir(p.Project()); err != nil {
		return fmt.Errorf("record trusted configuration: %w", err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// sortedPaths are the paths of files, sorted.
func sortedPaths(files config.Files) []string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}
