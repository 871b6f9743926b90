package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// KeptIndexDir is where the snapshots' kept indexes live, inside the git
// directory of each work tree (a linked worktree's own, so that `git
// worktree remove` takes them along).
const KeptIndexDir = "agent-gauntlet/index"

// staleLock is how old git's lock of a kept index must be before it is
// taken for the leftover of a git that was killed.
const staleLock = 10 * time.Minute

// keptIndexPath is the kept index of the snapshots of root with the
// exclude directories, in the git directory gitDir.
func keptIndexPath(gitDir, root string, exclude []string) string {
	return filepath.Join(gitDir, filepath.FromSlash(KeptIndexDir), projectID(root, exclude))
}

// removeOldSeeds removes the kept indexes an earlier version made for the
// project of kept: one per seed of the user's index, named
// <project>-<seed> (with its .tree note).
func removeOldSeeds(kept string) {
	old, _ := filepath.Glob(kept + "-*")
	for _, p := range old {
		if strings.HasSuffix(p, ".lock") || strings.HasSuffix(p, ".tmp") {
			continue
		}
		_ = os.Remove(p)
	}
}

// userSuffix names, next to a kept index, the copy of the user's index it
// was last merged from.
const userSuffix = ".user"

// seedSuffix names, next to a kept index, the note of what it was last
// merged from (see seedNote).
const seedSuffix = ".seed"

// seedNote is what a kept index was last merged from: the identity of the
// user's index, the paths it keeps as that index has them because they are
// flagged skip-worktree and not in the work tree (see mergeSeed), and the
// paths flagged skip-worktree that were in the work tree (flagged): one
// of them removed from the disk makes the merge stale.
type seedNote struct {
	user    string
	hidden  []string
	flagged []string
	// attrs is true when the user's index holds a .gitattributes file;
	// content identifies its entries (see indexContent).
	attrs   bool
	content string
}

// contentTag opens the user index's content in a seed note, hiddenTag
// the count of its hidden paths (the flagged ones follow them).
const (
	contentTag = "content="
	hiddenTag  = "hidden="
)

// readSeedNote reads the seed note of the kept index kept.
func readSeedNote(kept string) (seedNote, bool) {
	data, err := fsread.File(kept+seedSuffix, maxOwnFile)
	if err != nil {
		return seedNote{}, false
	}
	first, rest, ok := strings.Cut(string(data), "\n")
	// A note of an earlier version has no content: it is no note.
	f := strings.Fields(first)
	if !ok || len(f) < 2 || !strings.HasPrefix(f[1], contentTag) {
		return seedNote{}, false
	}
	// A note without the count of its hidden paths is of an earlier
	// version, which kept no flagged paths: it is no note.
	hiddenCount := -1
	for _, x := range f[2:] {
		if c, ok := strings.CutPrefix(x, hiddenTag); ok {
			if v, err := strconv.Atoi(c); err == nil && v >= 0 {
				hiddenCount = v
			}
		}
	}
	if hiddenCount < 0 {
		return seedNote{}, false
	}
	n := seedNote{user: f[0], content: strings.TrimPrefix(f[1], contentTag), attrs: slices.Contains(f[2:], "attributes")}
	for _, p := range strings.Split(rest, "\x00") {
		if p == "" {
			continue
		}
		if len(n.hidden) < hiddenCount {
			n.hidden = append(n.hidden, p)
		} else {
			n.flagged = append(n.flagged, p)
		}
	}
	return n, true
}

// writeSeedNote notes n for the kept index kept.
func writeSeedNote(kept string, n seedNote) error {
	var b strings.Builder
	b.WriteString(n.user + " " + contentTag + n.content)
	if n.attrs {
		b.WriteString(" attributes")
	}
	b.WriteString(" " + hiddenTag + strconv.Itoa(len(n.hidden)) + "\n")
	for _, p := range append(slices.Clip(n.hidden), n.flagged...) {
		b.WriteString(p + "\x00")
	}
	return atomicfile.WriteUnsynced(kept+seedSuffix, []byte(b.String()), 0o644)
}

// fresh reports whether the kept index merged as n still stands for the
// user's index with identity user: the same user index, none of the
// hidden paths in the work tree at top, and all of the flagged ones.
func (n seedNote) fresh(user, top string) bool {
	if n.user != user {
		return false
	}
	for _, p := range n.hidden {
		if fileExists(filepath.Join(top, filepath.FromSlash(p))) {
			return false
		}
	}
	for _, p := range n.flagged {
		if !fileExists(filepath.Join(top, filepath.FromSlash(p))) {
			return false
		}
	}
	return true
}

// mergeSeed writes to out the index a snapshot starts from: the entries of
// the user's index (the paths git tracks, ignored ones included) and those
// of ref, the kept index of the snapshots before, that were not in the
// user's index ref was merged from (prevUser, a copy of it: the untracked
// files the snapshots added; one the user stopped tracking is left to
// `git add` to add again unless it is ignored), every entry stripped of
// what makes git take it on trust:
//
//   - no index flag survives: a skip-worktree or assume-unchanged file is
//     read from the work tree like any other; an intent-to-add entry, or a
//     conflict's stages, are left to `git add` to read from the work tree;
//   - a cached stat is kept only from ref, for an entry whose stat there is
//     the user's too, or whose entry in the user's index is as it was in
//     prevUser (the user's index did not change it since ref was merged
//     from it: a rewrite of the user's index makes `git add` read again
//     only what it changed), and was not racily clean there: ref's object
//     id was read from the file as it is (literally), which the user's,
//     read through the repository's conversions, need not be. Every other
//     entry's stat is cleared, so that `git add` reads the file again.
//
// An entry the user's index marks skip-worktree whose file is not in the
// work tree at top (a sparse checkout's, or one flagged by hand with
// `git update-index --skip-worktree` and removed) keeps its flag and its
// content, and is returned among hidden: the snapshot holds it as git
// does (a commit carries it), and says so. A user's index that cannot be
// merged (a split or sparse index, a damaged file) is left out: the
// snapshot then holds what the work tree holds, without the ignored files
// git tracks. attrs says whether the user's index holds a .gitattributes
// file, content what its entries are (indexContent), flagged the entries
// marked skip-worktree whose file is in the work tree.
func mergeSeed(userIndex, ref, prevUser, out, top string) (hidden, flagged []string, attrs bool, content string, err error) {
	user, uerr := gitindex.Read(userIndex)
	content = indexContent(user, uerr)
	if uerr != nil || slices.Contains(user.Extensions, "link") || slices.Contains(user.Extensions, "sdir") {
		user = nil
	}
	var prev map[string]*gitindex.Entry
	var prevTime time.Time
	old, rerr := gitindex.Read(ref)
	if fi, err := os.Stat(ref); rerr == nil && err == nil && (user == nil || old.HashSize == user.HashSize) {
		prevTime = fi.ModTime()
		prev = make(map[string]*gitindex.Entry, len(old.Entries))
		for i := range old.Entries {
			if e := &old.Entries[i]; e.Stage() == 0 && e.Flags&gitindex.FlagExtended == 0 {
				prev[e.Path] = e
			}
		}
	}
	// was is the user's index prev was last merged from: an entry it
	// holds as the user's index still does was merged as it is now.
	var was map[string]gitindex.Entry
	var wasFile *gitindex.File
	if prev != nil {
		if w, err := gitindex.Read(prevUser); err == nil {
			wasFile = w
			was = make(map[string]gitindex.Entry, len(w.Entries))
			for _, e := range w.Entries {
				was[e.Path] = e
			}
		}
	}
	hashSize := 0
	var entries []gitindex.Entry
	if user != nil {
		hashSize = user.HashSize
		entries = make([]gitindex.Entry, 0, len(user.Entries)+len(prev))
		for _, e := range user.Entries {
			attrs = attrs || isAttributesPath(e.Path)
			if e.Stage() != 0 || e.IntentToAdd() || e.Mode == gitindex.ModeDir {
				continue
			}
			if e.SkipWorktree() && !fileExists(filepath.Join(top, filepath.FromSlash(e.Path))) {
				e.Flags &^= gitindex.FlagAssumeValid
				e.XFlags = gitindex.XFlagSkipWorktree
				hidden = append(hidden, e.Path)
				entries = append(entries, e)
				continue
			}
			if e.SkipWorktree() {
				flagged = append(flagged, e.Path)
			}
			w, seen := was[e.Path]
			unchanged := seen && sameEntry(&w, &e)
			e.Flags &^= gitindex.FlagAssumeValid | gitindex.FlagExtended
			e.XFlags = 0
			if p, ok := prev[e.Path]; ok && (p.Stat == e.Stat || unchanged) && !racy(p, prevTime) {
				e.Stat, e.Mode, e.OID = p.Stat, p.Mode, p.OID
			} else {
				e.Stat = [9]uint32{}
			}
			delete(prev, e.Path)
			entries = append(entries, e)
		}
	}
	if prev != nil {
		hashSize = old.HashSize
		if wasFile != nil {
			for i := range wasFile.Entries {
				delete(prev, wasFile.Entries[i].Path)
			}
		}
		for _, p := range prev {
			e := *p
			e.Flags &^= gitindex.FlagAssumeValid
			if racy(p, prevTime) {
				e.Stat = [9]uint32{}
			}
			entries = append(entries, e)
		}
	}
	if hashSize == 0 {
		// Nothing to start from: git makes the index (of the repository's
		// object format) on its first `git add`.
		if err := os.Remove(out); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, false, "", err
		}
		return nil, nil, false, content, nil
	}
	slices.SortFunc(entries, gitindex.Compare)
	entries = slices.CompactFunc(entries, func(a, b gitindex.Entry) bool { return a.Path == b.Path })
	return hidden, flagged, attrs, content, gitindex.Write(out, entries, hashSize)
}

// sameEntry reports whether two entries of a user's index say the same:
// path, mode, object, cached stat and flags.
func sameEntry(a, b *gitindex.Entry) bool {
	return a.Path == b.Path && a.Mode == b.Mode && bytes.Equal(a.OID, b.OID) && a.Stat == b.Stat &&
		a.Flags == b.Flags && a.XFlags == b.XFlags
}

// indexContent identifies the entries of a user's index (gitindex.Staged):
// "none" without an index, "unreadable" for one that cannot be read (each
// time another one, so never equal).
func indexContent(idx *gitindex.File, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "none"
	case err != nil:
		return fmt.Sprintf("unreadable-%d", time.Now().UnixNano())
	}
	return idx.Staged()
}

// isAttributesPath reports whether an index path is a .gitattributes file.
func isAttributesPath(p string) bool {
	return p == ".gitattributes" || strings.HasSuffix(p, "/.gitattributes")
}

// racy reports whether e's cached stat, in an index file written at
// written, cannot tell a later change (gitindex.Entry.ChangedSince).
func racy(e *gitindex.Entry, written time.Time) bool {
	return e.ChangedSince(written.Add(-gitindex.RacyMargin))
}

// busy reports whether git's lock file lock exists and is recent; an old
// one, left by a git that was killed, is removed.
func busy(lock string) bool {
	fi, err := os.Lstat(lock)
	if err != nil {
		return false
	}
	if time.Since(fi.ModTime()) > staleLock && fi.Mode().IsRegular() {
		return os.Remove(lock) != nil
	}
	return true
}

// projectID names the snapshots of root with exclude: the same root with
// other excludes (another log_dir) snapshots other paths.
func projectID(root string, exclude []string) string {
	h := sha256.New()
	io.WriteString(h, root)
	for _, x := range exclude {
		io.WriteString(h, "\x00"+x)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// indexIdentity identifies the content of the index file p: its size,
// modification time and trailing checksum (git ends every index it writes
// with the hash of its content; a new index is a new file, renamed over
// the old one). ok is false when there is no index or it cannot be read.
func indexIdentity(p string) (string, bool) {
	f, err := fsread.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	tail := make([]byte, 32)
	n := int64(len(tail))
	if fi.Size() < n {
		n = fi.Size()
	}
	if _, err := f.ReadAt(tail[:n], fi.Size()-n); err != nil && !errors.Is(err, io.EOF) {
		return "", false
	}
	h := sha256.New()
	var meta [16]byte
	binary.BigEndian.PutUint64(meta[:8], uint64(fi.Size()))
	binary.BigEndian.PutUint64(meta[8:], uint64(fi.ModTime().UnixNano()))
	h.Write(meta[:])
	h.Write(tail[:n])
	return hex.EncodeToString(h.Sum(nil))[:16], true
}

// IndexIdentity identifies the content of the user's index of the work
// tree at root (see indexIdentity); ok is false without one.
func IndexIdentity(ctx context.Context, root string) (string, bool) {
	_, index, err := gitPaths(ctx, root)
	if err != nil {
		return "", false
	}
	return indexIdentity(index)
}

// treeSuffix names, next to a kept index, the file that remembers the tree
// of its content: when `git add -A` leaves the index as it was (git does
// not rewrite an index that did not change), its tree is known without a
// `git write-tree`.
const treeSuffix = ".tree"

// knownTree is the tree of the kept index's content, and what it holds
// (indexFacts), when the index is still the one they were noted for; ok is
// false otherwise.
func (s *TreeSnapshot) knownTree() (tree string, facts indexFacts, ok bool) {
	if s.kept == "" {
		return "", facts, false
	}
	id, ok := indexIdentity(s.kept)
	if !ok || !hashedIndex(s.kept) {
		return "", facts, false
	}
	data, err := fsread.File(s.kept+treeSuffix, maxOwnFile)
	if err != nil {
		return "", facts, false
	}
	head, paths, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(head)
	if len(f) < 3 || f[0] != id || !isSHA(f[1]) || f[len(f)-1] != noteLinks {
		return "", facts, false
	}
	tree, facts.attrs = f[1], f[2] == "attributes"
	// The gitlinks, an empty name, the symbolic links, an empty name, the
	// directories: each name ends in a NUL, and no path is empty.
	lists := []*[]string{&facts.gitlinks, &facts.links, &facts.dirs}
	i := 0
	for _, l := range strings.Split(paths, "\x00") {
		switch {
		case l != "":
			*lists[i] = append(*lists[i], l)
		case i < len(lists)-1:
			i++
		}
	}
	return tree, facts, true
}

// noteLinks ends the first line of a tree note that names the symbolic
// links and the directories of the index too; a note without it is an
// older one, not used.
const noteLinks = "links+dirs"

// hashedIndex reports whether the index file p ends with the hash of its
// content (not with zeros, as with index.skipHash): only then does its
// identity tell its content apart from any other.
func hashedIndex(p string) bool {
	f, err := fsread.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < 20 {
		return false
	}
	tail := make([]byte, 20)
	if _, err := f.ReadAt(tail, fi.Size()-20); err != nil {
		return false
	}
	for _, b := range tail {
		if b != 0 {
			return true
		}
	}
	return false
}

// noteTree notes s.Tree, its gitlinks, its symbolic links (links) and the
// directories that hold its entries (dirs) as those of the kept index's
// content now.
func (s *TreeSnapshot) noteTree(links, dirs []string) {
	if s.kept == "" {
		return
	}
	id, ok := indexIdentity(s.kept)
	if !ok {
		return
	}
	var b strings.Builder
	b.WriteString(id + " " + s.Tree)
	if s.treeAttrs {
		b.WriteString(" attributes")
	}
	b.WriteString(" " + noteLinks + "\n")
	for _, l := range s.gitlinks {
		b.WriteString(l + "\x00")
	}
	b.WriteString("\x00")
	for _, l := range links {
		b.WriteString(l + "\x00")
	}
	b.WriteString("\x00")
	for _, d := range dirs {
		b.WriteString(d + "\x00")
	}
	_ = atomicfile.WriteUnsynced(s.kept+treeSuffix, []byte(b.String()), 0o644)
}
