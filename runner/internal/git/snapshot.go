package git

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// snapshotMessage is the message of a working-tree snapshot commit.
const snapshotMessage = "agent-gauntlet working tree snapshot"

// snapshotIdentity makes commit-tree work without a configured identity.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=agent-gauntlet", "GIT_AUTHOR_EMAIL=agent-gauntlet@localhost",
	"GIT_COMMITTER_NAME=agent-gauntlet", "GIT_COMMITTER_EMAIL=agent-gauntlet@localhost",
}

// SnapshotTree writes a tree object holding the work tree as it is on
// disk (see literal.go): every file that is not ignored, and the ignored
// files git tracks, with their bytes and modes as the file system has
// them, whatever attributes, configuration or index flags say. It works
// on an index of its own (GIT_INDEX_FILE), so the user's index, stash and
// work tree are never touched. Paths under the exclude directories
// (relative to root, such as the log directory) are left out.
func SnapshotTree(ctx context.Context, root string, exclude ...string) (string, error) {
	s, err := newTreeSnapshot(ctx, root, false, exclude)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Tree, nil
}

// TreeSnapshot is a SnapshotTree that keeps its index: Changed then tells
// cheaply whether the work tree moved since, and Retake snapshots it
// again, re-reading only what changed.
//
// The index of a TreeSnapshot is kept between runs too, in the git
// directory of the work tree: it caches the file stats of every file of
// the snapshot, untracked and modified ones included, so that snapshotting
// an unchanged work tree again costs about one `git status`, whatever its
// size. Whenever the user's index changes it is merged again from it (see
// mergeSeed), so that it holds the paths git tracks.
type TreeSnapshot struct {
	// Tree is the snapshot's tree object, as git holds a work tree: a
	// repository of its own inside it is a gitlink to its commit, and one
	// without a commit is left out.
	Tree string
	// KeyTree is everything in the work tree a program can read (what
	// Tree holds, with each repository of its own inside the work tree, a
	// gitlink or one left out, replaced by the tree of its work tree,
	// snapshotted the same way, and without the Hidden paths); "" when
	// that cannot be told, and Uncertain says why.
	KeyTree   string
	Uncertain string
	// Reach identifies what the symbolic links of KeyTree lead to outside
	// the work tree (see takeReach), "" when none does.
	Reach string
	// Unheld says, when a link leads to what no key can hold (a directory
	// outside the work tree, a device, a file too large), which and why:
	// then also Uncertain.
	Unheld string
	// LeftOut are the paths of the work tree git cannot hold in a tree, so
	// the snapshot leaves them out: a repository of its own without a
	// commit (its directory, with a trailing slash; a repository with a
	// commit is held as git holds it, a gitlink to that commit), a file it
	// cannot read. They are relative to the project root.
	LeftOut []string
	// Hidden are the paths, relative to the top level, that the user's
	// index flags skip-worktree (a sparse checkout, or by hand) and the
	// work tree does not hold: the snapshot holds them as the index does.
	Hidden []string
	root   string
	disk   *diskRepo
	// user is the user's index.
	user string
	// index is the snapshot's index: the kept one (kept), or one in the
	// temporary directory tmp, removed by Close.
	index string
	tmp   string
	kept  string
	// hold is the hold of kept while the snapshot uses it (holdKept),
	// released by Close.
	hold *keptHold
	// store is the gauntlet's directory in the outermost work tree's git
	// directory, where nested snapshots keep their indexes.
	store   string
	exclude []string
	// left are the absolute paths exclude leaves out.
	left []string
	// gitlinks are the top-level-relative paths of the gitlinks of Tree;
	// leftTop those of LeftOut.
	gitlinks, leftTop []string
	// treeAttrs and userAttrs are true when the snapshot's index or the
	// user's holds a .gitattributes file (see noAttributesInTree).
	treeAttrs, userAttrs bool
	// userContent identifies the entries of the user's index (UserIndex).
	userContent string
	// nested are the snapshots of the repositories inside the work tree,
	// by top-level-relative path; depth is how deep this one is nested.
	nested map[string]*TreeSnapshot
	depth  int
	// links are the top-level-relative paths of the symbolic links of
	// Tree; reaching those whose targets Reach holds (see ReachLinks).
	links, reaching []string
	// ends are where links lead (LinkEnds).
	ends []LinkEnd
	// empty identifies the directories git lists no file under that are
	// not ignored, in the work tree and the repositories inside it, "" for
	// none (see foldEmpty); ownEmpty those of the work tree alone (see
	// takeEmpty).
	empty, ownEmpty string
}

// NewTreeSnapshot takes a snapshot as SnapshotTree does, in the project's
// kept index (a temporary one when it cannot be used); the caller must
// Close it.
func NewTreeSnapshot(ctx context.Context, root string, exclude ...string) (*TreeSnapshot, error) {
	return newTreeSnapshot(ctx, root, true, exclude)
}

// newTreeSnapshot takes a snapshot in the kept index when keep is set and
// it can be used, else in a temporary one.
func newTreeSnapshot(ctx context.Context, root string, keep bool, exclude []string) (*TreeSnapshot, error) {
	gitDir, userIndex, err := gitPaths(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	d, err := openDisk(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	s := &TreeSnapshot{root: root, disk: d, user: userIndex,
		store: filepath.Join(gitDir, "agent-gauntlet")}
	for _, x := range exclude {
		s.exclude = append(s.exclude, ":(exclude,literal)"+x)
		s.left = append(s.left, filepath.Join(root, filepath.FromSlash(x)))
	}
	kept := ""
	if keep {
		kept = keptIndexPath(gitDir, root, exclude)
	}
	if err := s.open(ctx, kept); err != nil {
		// A deadline or a signal that ended its git leaves the hold of the
		// kept index to release (and the lock that git left to remove).
		s.Close()
		return nil, err
	}
	return s, nil
}

// open prepares the literal view and takes the snapshot in the kept index
// kept ("" for none) or, when that cannot be used, in a temporary one
// seeded with kept's stats when it can be read.
func (s *TreeSnapshot) open(ctx context.Context, kept string) error {
	if err := s.disk.prepare(ctx); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if kept != "" && storeDir(s.store, filepath.Dir(kept)) == nil && !busy(kept+".lock") {
		s.hold = holdKept(kept)
	}
	if s.hold != nil {
		s.index, s.kept = kept, kept
		err := s.Retake(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		// An index git cannot use: a temporary one this time, a fresh
		// kept one next time (unless a git holds it).
		if !busy(kept + ".lock") {
			for _, suffix := range []string{"", treeSuffix, seedSuffix, keySuffix, userSuffix, LookedSuffix, emptySuffix} {
				_ = os.Remove(kept + suffix)
			}
		}
		s.kept = ""
		s.release()
	}
	// The temporary index lives in the git directory: never in the work
	// tree (TMPDIR may point inside it) and on the same file system.
	if err := storeDir(s.store, s.store); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	tmp, err := os.MkdirTemp(s.store, "gauntlet-index-")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	s.tmp, s.index = tmp, filepath.Join(tmp, "index")
	if s.Hidden, _, s.userAttrs, s.userContent, err = mergeSeed(s.user, kept, kept+userSuffix, s.index, s.disk.top); err != nil {
		s.Close()
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := s.Retake(ctx); err != nil {
		s.Close()
		return err
	}
	return nil
}

// Key identifies everything in the work tree a gate can read, as the
// result cache keys it: KeyTree, then Reach when a link leads to what the
// snapshot does not hold; "" when that cannot be told (see Uncertain).
func (s *TreeSnapshot) Key() string {
	if s.KeyTree == "" {
		return ""
	}
	key := s.KeyTree
	if s.Reach != "" || len(s.ends) > 0 || s.empty != "" {
		key += " " + cmp.Or(s.Reach, noReach)
	}
	if w := ways(s.ends); w != "" {
		key += " " + waysPrefix + w
	}
	if s.empty != "" {
		key += " " + emptyPrefix + s.empty
	}
	return key
}

// EmptyDirs identifies the directories of the work tree, and of the
// repositories inside it, that git lists no file under and that are not
// ignored (see takeEmpty), "" for none: git holds no directory, so neither
// KeyTree nor Tree tells them, yet a gate sees them.
func (s *TreeSnapshot) EmptyDirs() string { return s.empty }

// noReach stands for an empty Reach in a Key that goes on.
const noReach = "-"

// waysPrefix opens the part of a Key that says where the links of the
// work tree lead when the snapshot holds what is there: a link that
// leads out of the work tree and back into it is re-pointed without
// KeyTree or Reach moving.
const waysPrefix = "ways:"

// ways identifies where the links of ends that lead to what the snapshot
// holds lead, "" for none.
func ways(ends []LinkEnd) string {
	h := sha256.New()
	n := 0
	for _, e := range ends {
		if e.ID == "" {
			n++
			fmt.Fprintf(h, "%s\x00%s\x00", e.Link, e.Tree)
		}
	}
	if n == 0 {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SplitKey is the KeyTree and Reach of a Key.
func SplitKey(key string) (keyTree, reach string) {
	f := strings.Fields(key)
	if len(f) == 0 {
		return "", ""
	}
	if len(f) > 1 && f[1] != noReach && !strings.HasPrefix(f[1], waysPrefix) && !strings.HasPrefix(f[1], emptyPrefix) {
		reach = f[1]
	}
	return f[0], reach
}

// UserIndex identifies what the user's index says (its entries, not the
// file stats it caches), as the snapshot last read it: git rewrites its
// index to refresh file stats (`git status` does, a racily clean file keeps
// it doing so for a second), which changes no staged path.
func (s *TreeSnapshot) UserIndex() string { return s.userContent }

// noAttributesInTree reports whether neither the snapshot's index nor the
// user's holds a .gitattributes file: attributes can then only come from
// outside the work tree (see checkoutLines).
func (s *TreeSnapshot) noAttributesInTree() bool { return !s.treeAttrs && !s.userAttrs }

// seed merges the kept index again from the user's index (mergeSeed) when
// that changed since the last merge, a path it kept hidden appeared in
// the work tree, or one flagged skip-worktree left it.
func (s *TreeSnapshot) seed() error {
	if s.kept == "" {
		return nil
	}
	user, _ := indexIdentity(s.user)
	if user == "" {
		user = "none"
	}
	n, noted := readSeedNote(s.kept)
	if noted && n.fresh(user, s.disk.top) && fileExists(s.kept) {
		s.Hidden, s.userAttrs, s.userContent = n.hidden, n.attrs, n.content
		return nil
	}
	if !noted {
		removeOldSeeds(s.kept)
	}
	hidden, flagged, attrs, content, err := mergeSeed(s.user, s.kept, s.kept+userSuffix, s.kept, s.disk.top)
	if err != nil {
		return err
	}
	s.Hidden, s.userAttrs, s.userContent = hidden, attrs, content
	if err := copyFile(s.user, s.kept+userSuffix); err != nil {
		_ = os.Remove(s.kept + userSuffix)
	}
	return writeSeedNote(s.kept, seedNote{user: user, hidden: hidden, flagged: flagged, attrs: attrs, content: content})
}

// Retake snapshots the work tree again into the snapshot's index and
// sets Tree, KeyTree and LeftOut. A path git cannot add never fails the
// snapshot: it is left out (a tracked one keeps its content of the
// index), and named.
func (s *TreeSnapshot) Retake(ctx context.Context) error {
	if err := s.seed(); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	args := []string{"add", "-A", "--ignore-errors"}
	if s.depth > 0 {
		// A repository inside the work tree is read whole: its own ignore
		// rules (its .gitignore files, its info/exclude) are files the
		// work writes like any other, and hide nothing from a gate.
		args = append(args, "--force")
	}
	args = append(append(args, "--", ":/"), s.exclude...)
	s.LeftOut, s.leftTop = nil, nil
	// A file changed this close to the look may change again with every
	// stat git compares as it was: its cached stat is cleared below.
	mark := time.Now().Add(-gitindex.RacyMargin)
	if _, _, err := run(ctx, s.disk.call(s.root, s.index, args...)); err != nil {
		left, ok := leftOut(err)
		if !ok {
			return fmt.Errorf("snapshot: %w", err)
		}
		// git names them from the top level of the work tree.
		pfx, err := showPrefix(ctx, s.root)
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		s.leftTop = left
		s.LeftOut = underPrefix(slices.Clone(left), pfx)
	}
	facts, known := indexFacts{}, false
	if s.Tree, facts, known = s.knownTree(); !known {
		out, _, err := run(ctx, s.disk.call(s.root, s.index, "write-tree"))
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		s.Tree = strings.TrimSpace(string(out))
		if facts, err = readIndexFacts(s.index, mark); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		// git trusts a cached stat whose size, modification time and
		// change time (to the second) match the file's: an agent puts
		// the first two back, and its edit can share the look's second.
		// An index git left as it was holds no such entry: the snapshot
		// that wrote it cleared them.
		if facts.racy {
			if _, err := gitindex.Smudge(s.index, mark); err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
		}
	}
	s.gitlinks, s.treeAttrs = facts.gitlinks, facts.attrs
	if !known {
		s.noteTree(facts.links, facts.dirs)
	}
	// A walk remembered stands for this one too: no directory of the index
	// held an entry named .git then (see takeEmpty), nor can now.
	answer, walked := s.walkKnown(facts.dirs)
	if dot := s.dotGitEntries(facts.dirs, walked); len(dot) > 0 {
		s.leftTop = append(s.leftTop, dot...)
		s.LeftOut = append(s.LeftOut, underPrefix(dot, s.disk.prefix)...)
	}
	// takeEmpty may leave out more entries named .git, which takeNested
	// reads. When the empty directories cannot be told, the gates still
	// judge the work tree, but no key stands for it: a verdict kept under
	// one would stand for what nobody looked at.
	emptyErr := s.takeEmpty(ctx, facts.dirs, walked, answer)
	if emptyErr != nil && ctx.Err() != nil {
		return emptyErr
	}
	if err := s.takeNested(ctx); err != nil {
		return err
	}
	s.foldEmpty()
	if emptyErr != nil && s.Uncertain == "" {
		s.KeyTree, s.Uncertain = "", emptyErr.Error()
	}
	return s.takeReach(ctx, facts.links)
}

// ignoredNotice is how `git add` (LC_ALL=C) starts to list pathspecs that
// name ignored paths, which it then exits 1 for after adding everything
// else: an exclude naming an ignored directory does that, and the
// directory is left out anyway.
const ignoredNotice = "The following paths are ignored by one of your .gitignore files"

// leftOutRE reads the lines in which `git add --ignore-errors` (LC_ALL=C)
// names a path it could not add and went on without: a repository of its
// own with no commit to point a gitlink at, a file it could not read,
// what is not a file, a link or a directory (a FIFO, a socket, a device
// where a tracked file was), a name no index may hold (a spelling of .git
// that core.protectNTFS or core.protectHFS refuses, a symbolic link named
// .gitmodules), which `git status` lists all the same.
var leftOutRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^error: (?:'(.*)' does not have a commit checked out|unable to index file '(.*)'|(.*): can only add regular files, symbolic links or git-directories|invalid path '(.*)'|unable to add '(.*)' to index)$`)
})

// leftOut reads the failure of `git add -A --ignore-errors`: the paths it
// left out, and whether that is all it says (it added everything else).
func leftOut(err error) ([]string, bool) {
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Code != 1 {
		return nil, false
	}
	var paths []string
	ignored := false
	for _, l := range strings.Split(strings.TrimRight(ce.Stderr, "\n"), "\n") {
		if m := leftOutRE().FindStringSubmatch(l); m != nil {
			p := strings.Join(m[1:], "")
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, ignoredNotice):
			ignored = true
		case strings.HasPrefix(l, "error: open(") || strings.HasPrefix(l, "hint: ") || strings.HasPrefix(l, "warning: "):
			// the reason of an unreadable file; git's advice
		case ignored && !strings.HasPrefix(l, "error: ") && !strings.HasPrefix(l, "fatal: "):
			// the ignored paths, one a line (git lists them before its
			// errors: an error it goes on to print is never one)
		default:
			return nil, false
		}
	}
	return paths, len(paths) > 0 || ignored
}

// HiddenInRoot are the Hidden paths under the project root the snapshot
// was taken of, relative to it.
func (s *TreeSnapshot) HiddenInRoot() []string {
	prefix, err := filepath.Rel(s.disk.top, s.root)
	if err != nil || strings.HasPrefix(prefix, "..") {
		return nil
	}
	prefix = filepath.ToSlash(prefix) + "/"
	if prefix == "./" {
		return s.Hidden
	}
	var in []string
	for _, p := range s.Hidden {
		if rel, ok := strings.CutPrefix(p, prefix); ok {
			in = append(in, rel)
		}
	}
	return in
}

// Changed reports whether the work tree differs from the snapshot: a file
// modified or deleted, or a new file that is not ignored.
func (s *TreeSnapshot) Changed(ctx context.Context) (bool, error) {
	for _, p := range s.Hidden {
		if fileExists(filepath.Join(s.disk.top, filepath.FromSlash(p))) {
			return true, nil
		}
	}
	args := []string{"ls-files", "-z", "--modified", "--deleted", "--others"}
	if s.depth == 0 {
		args = append(args, "--exclude-standard") // see Retake
	}
	args = append(append(args, "--", ":/"), s.exclude...)
	for p := range s.nested {
		if slices.Contains(s.leftTop, p+"/") {
			// Not in Tree, but in KeyTree: its own snapshot tells.
			args = append(args, ":(exclude,literal,top)"+p)
		}
	}
	c := s.disk.call(s.root, s.index, args...)
	c.limit = 1
	out, _, err := run(ctx, c)
	if err != nil {
		return false, fmt.Errorf("snapshot: %w", err)
	}
	if len(out) > 0 {
		return true, nil
	}
	for _, n := range s.nested {
		if changed, err := n.Changed(ctx); err != nil || changed {
			return changed, err
		}
	}
	return s.reachMoved(ctx)
}

// Close removes a temporary index; a kept one stays for the next run.
func (s *TreeSnapshot) Close() {
	if s == nil {
		return
	}
	for _, n := range s.nested {
		n.Close()
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
		s.tmp = ""
	}
	s.release()
}

// release lets go of the hold of the kept index, if the snapshot has it.
func (s *TreeSnapshot) release() {
	s.hold.release()
	s.hold = nil
}

// gitPaths returns the absolute git directory of root and its index file.
// A plain repository (root/.git a directory, no GIT_* variable moving
// either) needs no git process.
func gitPaths(ctx context.Context, root string) (gitDir, index string, err error) {
	if dir := filepath.Join(root, ".git"); plainEnv() && filepath.IsAbs(root) {
		if st, err := os.Lstat(dir); err == nil && st.IsDir() {
			return dir, filepath.Join(dir, "index"), nil
		}
	}
	out, err := output(ctx, root, "rev-parse", "--absolute-git-dir", "--git-path", "index")
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("git rev-parse --absolute-git-dir --git-path index: unexpected output %q", out)
	}
	gitDir, index = lines[0], lines[1]
	if !filepath.IsAbs(index) {
		index = filepath.Join(root, index)
	}
	return gitDir, index, nil
}

// baseTrailer records, in a snapshot's message, the base commit at the time
// of the snapshot: auto-clean uses it to tell work that was merged from work
// that sat on the base branch all along.
const baseTrailer = "Gauntlet-Base: "

// sinceTrailer records, in a snapshot's message, where the change set
// that a chain of verification runs verifies began (see CommitTreeOn).
const sinceTrailer = "Gauntlet-Since: "

// CommitTreeOn wraps tree in a dangling commit whose parent is parent
// (HEAD's SHA; "" in a repository without commits) and returns the commit's
// SHA: the execution state's working_tree_ref. A non-empty base (the base
// branch's commit) and a non-empty since (the commit the verified change set
// is diffed from) are recorded in the message.
func CommitTreeOn(ctx context.Context, root, tree, base, since, parent string) (string, error) {
	msg := snapshotMessage
	if base != "" || since != "" {
		msg += "\n"
	}
	if base != "" {
		msg += "\n" + baseTrailer + base
	}
	if since != "" {
		msg += "\n" + sinceTrailer + since
	}
	args := []string{"commit-tree", tree, "-m", msg}
	if head := parent; head != "" {
		args = append(args, "-p", head)
	}
	out, _, err := run(ctx, call{root: root, env: snapshotIdentity, args: args})
	if err != nil {
		return "", fmt.Errorf("snapshot commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// recordedBase returns the base trailer of a snapshot commit's text.
func recordedBase(commit []byte) string { return trailer(commit, baseTrailer) }

// trailer returns the value of the first line of commit's text starting
// with key, "" when none does.
func trailer(commit []byte, key string) string {
	for _, l := range strings.Split(string(commit), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// storeDir makes dir, the gauntlet's store in a git directory (store, its
// "agent-gauntlet") or a directory below it, refusing a link or a file on
// the way below the git directory (owned.MkdirAll): the indexes and views
// are never written through one.
func storeDir(store, dir string) error {
	gitDir := filepath.Dir(store)
	rel, err := filepath.Rel(gitDir, dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return owned.MkdirAll(gitDir, rel, 0o755)
}
