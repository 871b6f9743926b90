package logdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Result is what Clean did.
type Result struct {
	// Archived is true when something was moved into previous/.
	Archived bool
	// Warnings name each entry left in place (not the gauntlet's own, or
	// not a regular file), one line each, for the caller to print.
	Warnings []string
}

// Messages of Clean: one source of truth.
const (
	msgForeign   = "left %s in place: agent-gauntlet moves and deletes only the files it writes"
	msgIrregular = "left %s in place: it is %s, not a file agent-gauntlet writes"
	msgOccupied  = "left %s in place: %s already exists"
	msgPrevious  = "%s is %s, not the archive directory: move it away so that the logs can be archived"
	msgAside     = "kept %s as %s: it was there when agent-gauntlet started its record of the files it writes, so it may be a person's; delete it if it is not yours"
)

// Clean archives the logs of the log directory dir into dir/previous/.
// root is the project root (the directory the configuration judged dir
// against): dir must lie inside it, and every operation goes through an
// os.Root of root, so a log directory (or anything in it) turned into a
// symbolic link leading out of the project after the configuration was
// checked is refused, never followed.
//
// Clean does nothing when dir is missing or its root holds no run log
// (console, check or review log or review JSON); then, with includeState,
// the execution state alone still moves into previous/, next to the
// archive a passed run left. Otherwise it empties previous/ of the files it
// put there (creating it if needed), moves every file of its own at the
// root into it except the debug logs, the lock and, unless includeState,
// the execution state, and deletes the legacy .session_ref.
//
// Only regular files whose names are the gauntlet's own (IsOwn) are moved
// or deleted, at the root and in previous/; anything else stays, and each
// such entry is a warning of the Result. A previous/ that is not a
// directory (a symbolic link, a file) is an error: it is never replaced.
// Clean goes on after a failure and returns every failure joined. The
// caller holds the run lock.
func Clean(root, dir string, includeState bool) (Result, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return Result{}, fmt.Errorf("log directory %s is not inside %s", fserr.Quote(dir), fserr.Quote(root))
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, fserr.Wrap("inspect log directory", dir, err)
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("log directory %s is %s, not a directory", fserr.Quote(dir), fsread.Kind(fi.Mode()))
	}
	// (Only a swap of a directory for a FIFO after the Stat could make
	// these opens wait.)
	project, err := os.OpenRoot(root)
	if err != nil {
		return Result{}, fserr.Wrap("open project root", root, err)
	}
	defer project.Close()
	var logs *os.Root
	if owned.Via(dir) != dir {
		// The log directory held open (owned.Hold), whatever is at its
		// name now.
		logs, err = openRoot(dir)
	} else {
		logs, err = project.OpenRoot(rel)
	}
	if err != nil {
		return Result{}, fserr.Wrap("open log directory", dir, fserr.Pathless(err))
	}
	defer logs.Close()
	c := &cleaner{root: logs, dir: dir, own: readOwnership(dir)}
	res, err := c.clean(includeState)
	if serr := c.own.save(); serr != nil {
		err = errors.Join(err, fmt.Errorf("record what moved: %w", serr))
	}
	return res, err
}

// cleaner is one Clean of the log directory dir, opened as root.
type cleaner struct {
	root *os.Root
	dir  string
	own  *ownership
	res  Result
	errs []error
}

// ours reports whether the entry rel is a regular file the gauntlet wrote
// (see ownership.owns).
func (c *cleaner) ours(rel string) bool { return c.own.owns(c.root, rel) }

// removeOwn deletes the file rel, one of the gauntlet's; one it adopted
// is moved aside instead (aside).
func (c *cleaner) removeOwn(rel string) {
	if c.own.adopted(rel) {
		c.aside(rel)
		return
	}
	if err := c.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.fail("remove", rel, err)
		return
	}
	c.own.remove(rel)
}

// warn records an entry (relative to the log directory) left in place.
func (c *cleaner) warn(format, rel string, args ...any) {
	shown := fserr.Quote(filepath.Join(c.dir, rel))
	c.res.Warnings = append(c.res.Warnings, fmt.Sprintf(format, append([]any{shown}, args...)...))
}

// fail records a failed operation.
func (c *cleaner) fail(op, rel string, err error) {
	c.errs = append(c.errs, fserr.Wrap(op, fserr.Quote(filepath.Join(c.dir, rel)), fserr.Pathless(err)))
}

func (c *cleaner) clean(includeState bool) (Result, error) {
	entries, err := c.list(".")
	if err != nil {
		return Result{}, fserr.Wrap("read log directory", c.dir, err)
	}
	var move, remove []string
	logs := false
	for _, e := range entries {
		name := e.Name()
		k := classify(name)
		switch {
		case k == previousDir || k == kept || ((k == stateFile || k == commitDir) && !includeState):
			continue
		case k == foreign:
			c.warn(msgForeign, name)
			continue
		case k == commitDir && e.IsDir():
			move = append(move, name)
			continue
		case !e.Type().IsRegular():
			c.warn(msgIrregular, name, fsread.Kind(e.Type()))
			continue
		case !c.ours(name):
			c.warn(msgForeign, name)
			continue
		}
		switch k {
		case legacyDeleted:
			remove = append(remove, name)
		case runLog:
			logs = true
			move = append(move, name)
		default:
			move = append(move, name)
		}
	}
	if !logs {
		// No logs (a passed run archived them already): only the state
		// and commit/ move, next to that archive, which stays as it is.
		move, remove = onlyState(move), nil
	} else {
		c.emptyPrevious()
	}
	if len(move) > 0 && c.ensurePrevious() {
		for _, name := range move {
			c.archive(name)
		}
	}
	for _, name := range remove {
		c.removeOwn(name)
	}
	return c.res, errors.Join(c.errs...)
}

// onlyState keeps the execution state and commit/ of names, if there.
func onlyState(names []string) []string {
	var kept []string
	for _, name := range names {
		if k := classify(name); k == stateFile || k == commitDir {
			kept = append(kept, name)
		}
	}
	return kept
}

// list reads the directory rel of the root, never blocking on a FIFO.
func (c *cleaner) list(rel string) ([]fs.DirEntry, error) {
	f, err := openDirIn(c.root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// ensurePrevious makes sure previous/ is a directory, creating it if
// needed; anything else in its place is an error (it is never replaced).
func (c *cleaner) ensurePrevious() bool {
	if err := c.root.Mkdir(PreviousDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		c.fail("create", PreviousDir, err)
		return false
	}
	fi, err := c.root.Lstat(PreviousDir)
	if err != nil {
		c.fail("inspect", PreviousDir, err)
		return false
	}
	if !fi.IsDir() {
		c.errs = append(c.errs, fmt.Errorf(msgPrevious, fserr.Quote(filepath.Join(c.dir, PreviousDir)), fsread.Kind(fi.Mode())))
		return false
	}
	return true
}

// emptyPrevious deletes the gauntlet's own files from previous/, warning
// about anything else there. A previous/ that is missing or not a
// directory is left to ensurePrevious.
func (c *cleaner) emptyPrevious() {
	fi, err := c.root.Lstat(PreviousDir)
	if err != nil || !fi.IsDir() {
		return
	}
	entries, err := c.list(PreviousDir)
	if err != nil {
		c.fail("read", PreviousDir, err)
		return
	}
	for _, e := range entries {
		rel := filepath.Join(PreviousDir, e.Name())
		switch {
		case classify(e.Name()) == commitDir && e.IsDir():
			c.emptyOwnDir(rel)
		case !IsOwn(e.Name()):
			c.warn(msgForeign, rel)
		case !e.Type().IsRegular():
			c.warn(msgIrregular, rel, fsread.Kind(e.Type()))
		case !c.ours(rel):
			c.warn(msgForeign, rel)
		default:
			c.removeOwn(rel)
		}
	}
}

// emptyOwnDir deletes the gauntlet's own regular files from the directory
// rel (an archived commit/), warning about anything else there, and then
// the directory itself when that left it empty.
func (c *cleaner) emptyOwnDir(rel string) {
	entries, err := c.list(rel)
	if err != nil {
		c.fail("read", rel, err)
		return
	}
	c.eachOwn(rel, entries, c.removeOwn)
	// Fails, leaving it, when something not ours is still there.
	_ = c.root.Remove(rel)
}

// eachOwn calls do with each entry of the directory rel that is a regular
// file the gauntlet wrote, warning about anything else there.
func (c *cleaner) eachOwn(rel string, entries []fs.DirEntry, do func(sub string)) {
	for _, e := range entries {
		sub := filepath.Join(rel, e.Name())
		switch {
		case !IsOwn(e.Name()) || classify(e.Name()) == commitDir:
			c.warn(msgForeign, sub)
		case !e.Type().IsRegular():
			c.warn(msgIrregular, sub, fsread.Kind(e.Type()))
		case !c.ours(sub):
			c.warn(msgForeign, sub)
		default:
			do(sub)
		}
	}
}

// archive moves the root entry name into previous/. A file of that name
// already there is replaced when it is one the gauntlet wrote (archived
// before); anything else there stays, and so does the entry. commit/ is
// archived file by file (archiveDir).
func (c *cleaner) archive(name string) {
	target := filepath.Join(PreviousDir, name)
	if fi, err := c.root.Lstat(name); err == nil && fi.IsDir() && classify(name) == commitDir {
		c.archiveDir(name)
		return
	}
	c.moveOwn(name, target)
}

// moveOwn moves the gauntlet's file rel to target, replacing a file the
// gauntlet wrote there; one it adopted there is moved aside first
// (aside); anything else at target stays, and so does rel.
func (c *cleaner) moveOwn(rel, target string) {
	if _, err := c.root.Lstat(target); err == nil && !c.ours(target) {
		c.warn(msgOccupied, rel, fserr.Quote(filepath.Join(c.dir, target)))
		return
	}
	if c.own.adopted(target) && !c.aside(target) {
		return
	}
	if err := c.root.Rename(rel, target); err != nil {
		c.fail("archive", rel, err)
		return
	}
	c.own.move(rel, target)
	c.res.Archived = true
}

// archiveDir moves the gauntlet's files of the directory name (commit/)
// into previous/<name>/, emptied of the gauntlet's files first, and then
// deletes the directory when that left it empty. Anything else in it
// stays where it is.
func (c *cleaner) archiveDir(name string) {
	target := filepath.Join(PreviousDir, name)
	if fi, err := c.root.Lstat(target); err == nil && fi.IsDir() {
		c.emptyOwnDir(target)
	}
	if err := c.root.Mkdir(target, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		c.fail("create", target, err)
		return
	}
	if fi, err := c.root.Lstat(target); err != nil || !fi.IsDir() {
		c.warn(msgOccupied, name, fserr.Quote(filepath.Join(c.dir, target)))
		return
	}
	entries, err := c.list(name)
	if err != nil {
		c.fail("read", name, err)
		return
	}
	c.eachOwn(name, entries, func(sub string) { c.moveOwn(sub, filepath.Join(target, filepath.Base(sub))) })
	// Fails, leaving it, when something not ours is still there.
	_ = c.root.Remove(name)
}

// aside renames the adopted file rel to a fresh name beside it, which is
// no name of the gauntlet's, and drops it from the record: an adopted file
// may be a person's (see Start), so where the gauntlet would delete it or
// write over it, it is kept, and from then on left alone. It reports
// whether rel's place is free.
func (c *cleaner) aside(rel string) bool {
	to, err := aside(c.root, c.own, rel)
	if err != nil {
		c.fail("move aside", rel, err)
		return false
	}
	c.warn(msgAside, rel, fserr.Quote(filepath.Join(c.dir, to)))
	return true
}

// aside renames the file rel of root to the first free name of
// rel.adopted, rel.adopted.2, ... and makes o forget it (o.save records
// that); it returns the new name.
func aside(root *os.Root, o *ownership, rel string) (string, error) {
	for i := 1; ; i++ {
		to := rel + adoptedSuffix
		if i > 1 {
			to += fmt.Sprintf(".%d", i)
		}
		if _, err := root.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
			if err != nil {
				return "", err
			}
			continue
		}
		if err := root.Rename(rel, to); err != nil {
			return "", err
		}
		o.remove(rel)
		return to, nil
	}
}

// adoptedSuffix ends the name an adopted file is kept under (aside): no
// name of the gauntlet's ends so (IsOwn).
const adoptedSuffix = ".adopted"
