package git

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// KeptIndexDir is where the snapshots' kept indexes live, inside the git
// directory of each work tree (a linked worktree's own, so that `git
// worktree remove` takes them along).
const KeptIndexDir = "agent-gauntlet/index"

// staleLock is how old git's lock of a kept index must be before it is
// taken for the leftover of a git that was killed.
const staleLock = 10 * time.Minute

// keptIndex returns the kept index of the snapshots of root (with the
// exclude directories) for the user's index as it is now, seeding it with
// a copy of the user's index when there is none for it yet. Its name holds
// the identity of the user's index it was seeded from (indexIdentity), so
// an index is only ever used with the seed it was made from: a change of
// the user's index (a commit, `git add`, `git rm --cached`) starts a new
// one and the old ones of the project are removed. ok is false when it
// cannot be used (no user index yet, a file system error, another
// snapshot at work in it): the caller takes a temporary index instead.
func keptIndex(gitDir, userIndex, root string, exclude []string) (string, bool) {
	seed, ok := indexIdentity(userIndex)
	if !ok {
		return "", false
	}
	dir := filepath.Join(gitDir, filepath.FromSlash(KeptIndexDir))
	project := projectID(root, exclude)
	index := filepath.Join(dir, project+"-"+seed)
	if busy(index + ".lock") {
		return "", false
	}
	if fi, err := os.Lstat(index); err == nil {
		return index, fi.Mode().IsRegular()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false
	}
	tmp, err := os.CreateTemp(dir, "."+project+"-*.tmp")
	if err != nil {
		return "", false
	}
	tmp.Close()
	if ok, err := copyIndex(userIndex, tmp.Name()); !ok || err != nil {
		os.Remove(tmp.Name())
		return "", false
	}
	if err := os.Rename(tmp.Name(), index); err != nil {
		os.Remove(tmp.Name())
		return "", false
	}
	removeOtherSeeds(dir, project, index)
	return index, true
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

// removeOtherSeeds removes the kept indexes of project other than keep
// (they were seeded from an older user index), and leftovers of seeding.
func removeOtherSeeds(dir, project, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case p == keep, p == keep+treeSuffix, !e.Type().IsRegular():
		case strings.HasPrefix(name, project+"-") && !strings.HasSuffix(name, ".lock"):
			_ = os.Remove(p)
		case strings.HasPrefix(name, "."+project+"-") && strings.HasSuffix(name, ".tmp"):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleLock {
				_ = os.Remove(p)
			}
		}
	}
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
	f, err := os.Open(p)
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

// knownTree is the tree of the kept index's content when the index is
// still the one it was noted for, "" otherwise.
func (s *TreeSnapshot) knownTree() string {
	if s.kept == "" {
		return ""
	}
	id, ok := indexIdentity(s.kept)
	if !ok || !hashedIndex(s.kept) {
		return ""
	}
	data, err := os.ReadFile(s.kept + treeSuffix)
	if err != nil {
		return ""
	}
	noted, tree, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	if !ok || noted != id || !isSHA(tree) {
		return ""
	}
	return tree
}

// hashedIndex reports whether the index file p ends with the hash of its
// content (not with zeros, as with index.skipHash): only then does its
// identity tell its content apart from any other.
func hashedIndex(p string) bool {
	f, err := os.Open(p)
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

// noteTree notes s.Tree as the tree of the kept index's content now.
func (s *TreeSnapshot) noteTree() {
	if s.kept == "" {
		return
	}
	id, ok := indexIdentity(s.kept)
	if !ok {
		return
	}
	tmp := s.kept + treeSuffix + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+" "+s.Tree+"\n"), 0o644); err != nil {
		return
	}
	if err := os.Rename(tmp, s.kept+treeSuffix); err != nil {
		_ = os.Remove(tmp)
	}
}
