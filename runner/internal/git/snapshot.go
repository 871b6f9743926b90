package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// snapshotMessage is the message of a working-tree snapshot commit.
const snapshotMessage = "agent-gauntlet working tree snapshot"

// snapshotIdentity makes commit-tree work without a configured identity.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=agent-gauntlet", "GIT_AUTHOR_EMAIL=agent-gauntlet@localhost",
	"GIT_COMMITTER_NAME=agent-gauntlet", "GIT_COMMITTER_EMAIL=agent-gauntlet@localhost",
}

// SnapshotTree writes a tree object holding the work tree as it is: tracked
// files with their current content and untracked files that are not
// ignored. It works on a temporary copy of the index (GIT_INDEX_FILE), so the
// user's index, stash and work tree are never touched. Only the project
// root (git's working directory) is read from the work tree: outside it the
// tree holds the index's content, which diffs restricted to the root
// (--relative) never look at. Paths under the exclude directories
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
// directory of the work tree (see keptIndex): seeded once from a copy of
// the user's index, it then caches the file stats of every file of the
// snapshot, untracked and modified ones included, so that snapshotting an
// unchanged work tree again costs about one `git status`, whatever its
// size. It is seeded again whenever the user's index changes, so that its
// tree is always the one a fresh copy would give.
type TreeSnapshot struct {
	// Tree is the snapshot's tree object.
	Tree string
	// LeftOut are the paths of the work tree git cannot hold in a tree, so
	// the snapshot leaves them out: a repository of its own without a
	// commit (its directory, with a trailing slash; a repository with a
	// commit is held as git holds it, a gitlink to that commit), a file it
	// cannot read. They are relative to the project root; Changed counts
	// them as changes, since the snapshot does not hold them.
	LeftOut []string
	root    string
	// tmp is the temporary directory of the index, removed by Close; ""
	// for a kept index.
	tmp string
	// kept is the kept index, "" for a temporary one.
	kept    string
	env     []string
	exclude []string
}

// NewTreeSnapshot takes a snapshot as SnapshotTree does, in the project's
// kept index (a temporary one when it cannot be used); the caller must
// Close it.
func NewTreeSnapshot(ctx context.Context, root string, exclude ...string) (*TreeSnapshot, error) {
	return newTreeSnapshot(ctx, root, true, exclude)
}

// newTreeSnapshot takes a snapshot in the kept index when keep is set and
// it can be used, else in a temporary copy of the user's index.
func newTreeSnapshot(ctx context.Context, root string, keep bool, exclude []string) (*TreeSnapshot, error) {
	gitDir, userIndex, err := gitPaths(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	s := &TreeSnapshot{root: root}
	for _, x := range exclude {
		s.exclude = append(s.exclude, ":(exclude,literal)"+x)
	}
	if keep {
		if index, ok := keptIndex(gitDir, userIndex, root, exclude); ok {
			s.env, s.kept = []string{"GIT_INDEX_FILE=" + index}, index
			err := s.Retake(ctx)
			if err == nil || ctx.Err() != nil {
				return s, err
			}
			// An index git cannot use: a temporary one this time, a fresh
			// kept one next time (unless another snapshot holds it).
			if _, lerr := os.Lstat(index + ".lock"); lerr != nil {
				_ = os.Remove(index)
				_ = os.Remove(index + treeSuffix)
			}
			s.kept = ""
		}
	}
	// The temporary index lives in the git directory: never in the work
	// tree (TMPDIR may point inside it) and on the same file system.
	tmp, err := os.MkdirTemp(gitDir, "gauntlet-index-")
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	index := filepath.Join(tmp, "index")
	s.tmp, s.env = tmp, []string{"GIT_INDEX_FILE=" + index}
	if err := s.seed(ctx, userIndex, index); err != nil {
		s.Close()
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if err := s.Retake(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// seed fills the temporary index: a copy of the user's index (its cached
// file stats make `git add -A` cheap), else HEAD's tree.
func (s *TreeSnapshot) seed(ctx context.Context, userIndex, index string) error {
	seeded, err := copyIndex(userIndex, index)
	if err != nil || seeded {
		return err
	}
	head, err := Head(ctx, s.root)
	if err != nil || head == "" {
		return err
	}
	_, _, err = run(ctx, call{root: s.root, env: s.env, args: []string{"read-tree", head}})
	return err
}

// ignoredNotice is how `git add` (LC_ALL=C) starts to list pathspecs that
// name ignored paths, which it then exits 1 for after adding everything
// else: an exclude naming an ignored directory does that, and the
// directory is left out anyway.
const ignoredNotice = "The following paths are ignored by one of your .gitignore files"

// leftOutRE reads the lines in which `git add --ignore-errors` (LC_ALL=C)
// names a path it could not add and went on without: a repository of its
// own with no commit to point a gitlink at, a file it could not read.
var leftOutRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^error: (?:'(.*)' does not have a commit checked out|unable to index file '(.*)')$`)
})

// Retake snapshots the work tree again into the kept index and sets Tree
// and LeftOut. A path git cannot add never fails the snapshot: it is
// left out (a tracked one keeps its content of the index), and named.
func (s *TreeSnapshot) Retake(ctx context.Context) error {
	args := append([]string{"-c", "core.splitIndex=false", "-c", "core.fsmonitor=false", "add", "-A", "--ignore-errors", "--", "."}, s.exclude...)
	s.LeftOut = nil
	if _, _, err := run(ctx, call{root: s.root, env: s.env, args: args}); err != nil {
		left, ok := leftOut(err)
		if !ok {
			return fmt.Errorf("snapshot: %w", err)
		}
		// git names them from the top level of the work tree.
		pfx, err := showPrefix(ctx, s.root)
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		s.LeftOut = underPrefix(left, pfx)
	}
	if tree := s.knownTree(); tree != "" {
		s.Tree = tree
		return nil
	}
	out, _, err := run(ctx, call{root: s.root, env: s.env, args: []string{"write-tree"}})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	s.Tree = strings.TrimSpace(string(out))
	s.noteTree()
	return nil
}

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
			p := m[1] + m[2]
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, ignoredNotice):
			ignored = true
		case ignored || strings.HasPrefix(l, "error: open(") || strings.HasPrefix(l, "hint: ") || strings.HasPrefix(l, "warning: "):
			// the ignored paths, one a line; the reason of an unreadable
			// file; git's advice
		default:
			return nil, false
		}
	}
	return paths, len(paths) > 0 || ignored
}

// Changed reports whether the work tree differs from the snapshot: a file
// modified or deleted, or a new file that is not ignored.
func (s *TreeSnapshot) Changed(ctx context.Context) (bool, error) {
	args := append([]string{"ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard", "--", "."}, s.exclude...)
	out, _, err := run(ctx, call{root: s.root, env: s.env, args: args, limit: 1})
	if err != nil {
		return false, fmt.Errorf("snapshot: %w", err)
	}
	return len(out) > 0, nil
}

// Close removes a temporary index; a kept one stays for the next run.
func (s *TreeSnapshot) Close() {
	if s != nil && s.tmp != "" {
		os.RemoveAll(s.tmp)
		s.tmp = ""
	}
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

// copyIndex copies the user's index p to dst (it caches file stats, which
// makes `git add -A` cheap), with p's modification time: git trusts the
// cached stats of a file only when the file changed before the index was
// written, and a copy made later must not make a file modified in between
// look unchanged. It reports false when there is no index yet.
func copyIndex(p, dst string) (bool, error) {
	src, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return false, fserr.Wrap("copy index", p, err)
	}
	if err := out.Close(); err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	if err := os.Chtimes(dst, fi.ModTime(), fi.ModTime()); err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	return true, nil
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
