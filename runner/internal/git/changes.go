package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// BaseBranchError reports a base branch that names no commit.
type BaseBranchError struct{ Branch string }

// Error names the branch and says how to fix it.
func (e *BaseBranchError) Error() string {
	return fmt.Sprintf("base branch %q does not exist: set base_branch in .gauntlet/config.yml (or pass -b <branch>)", e.Branch)
}

// NoMergeBaseError reports a base branch that shares no commit with HEAD in
// the history at hand, as in a shallow clone that lacks their common commit.
type NoMergeBaseError struct {
	Branch  string
	Shallow bool
}

// Error names the branch and says what to do.
func (e *NoMergeBaseError) Error() string {
	if e.Shallow {
		return fmt.Sprintf("base branch %q and HEAD have no common commit (no merge base) in this shallow clone: fetch more history (git fetch --unshallow) or set base_branch in .gauntlet/config.yml", e.Branch)
	}
	return fmt.Sprintf("base branch %q and HEAD have no common commit (no merge base): set base_branch in .gauntlet/config.yml (or pass -b <branch>)", e.Branch)
}

// noMergeBase turns git's "no merge base" failure of a three-dot diff into a
// NoMergeBaseError, and returns any other error unchanged.
func noMergeBase(ctx context.Context, root, base string, err error) error {
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(ce.Stderr, "no merge base") {
		return err
	}
	out, _, serr := run(ctx, call{root: root, args: []string{"rev-parse", "--is-shallow-repository"}})
	return &NoMergeBaseError{Branch: base, Shallow: serr == nil && strings.TrimSpace(string(out)) == "true"}
}

// CommitNotFoundError reports a --commit that names no commit.
type CommitNotFoundError struct{ Commit string }

// Error names the commit.
func (e *CommitNotFoundError) Error() string {
	return fmt.Sprintf("commit %q not found", e.Commit)
}

// Changes is the set of changed paths of one run.
type Changes struct {
	// Files are paths relative to the project root (the directory git runs
	// in), restricted to it, de-duplicated, in discovery order. A
	// rename contributes both its old and its new path; deletions count.
	Files []string
	// BaseRef names what the files were compared against, for the debug log:
	// the base branch, "uncommitted", "<sha>^", "root", "HEAD^" or a snapshot SHA.
	BaseRef string
	// Warnings are things the user should know (a CI fallback, ...).
	Warnings []string
}

// nameOnly is the diff option set that lists changed paths, one per NUL.
// --relative restricts the listing to the project root (git's working
// directory, which may lie below the top level) and makes the paths
// relative to it, as entry points and the log directory are.
var nameOnly = []string{"diff", "--name-only", "-z", "--relative", "--no-renames", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none"}

// diffNames lists the paths a `git diff` with args reports.
func diffNames(ctx context.Context, root string, args ...string) ([]string, error) {
	out, err := output(ctx, root, append(append([]string{}, nameOnly...), args...)...)
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// statusArgs list staged, unstaged and untracked (not ignored) paths in one
// process: porcelain v2 (stable, paths relative to the top level, not
// quoted with -z), every untracked file rather than its directory, no rename
// pairing and every submodule change, as the name-only diffs would. The
// pathspec "." restricts it to the project root (git's working directory).
var statusArgs = []string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none", "--", "."}

// uncommittedFiles is staged ∪ unstaged ∪ untracked, in that order (each
// list sorted as git sorts paths), from one `git status`, relative to root.
func uncommittedFiles(ctx context.Context, root string) ([]string, error) {
	var out []byte
	var pfx string
	err := parallel(func() error {
		var err error
		out, err = output(ctx, root, statusArgs...)
		return err
	}, func() error {
		var err error
		pfx, err = showPrefix(ctx, root)
		return err
	})
	if err != nil {
		return nil, err
	}
	staged, unstaged, other, err := parseStatus(out)
	if err != nil {
		return nil, err
	}
	return underPrefix(union(staged, unstaged, other), pfx), nil
}

// underPrefix keeps the top-level-relative paths under pfx (a directory
// with its trailing slash, "" for the top level) and makes them relative
// to it.
func underPrefix(files []string, pfx string) []string {
	if pfx == "" {
		return files
	}
	kept := files[:0]
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f, pfx); ok && rel != "" {
			kept = append(kept, rel)
		}
	}
	return kept
}

// parseStatus splits `git status --porcelain=v2 -z` output into the paths
// `git diff --cached`, `git diff` and `git ls-files --others` would list.
func parseStatus(out []byte) (staged, unstaged, untracked []string, err error) {
	recs := strings.Split(string(out), "\x00")
	unmerged := false
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if rec == "" {
			continue
		}
		// fields is the number of space-separated fields before the path.
		var fields int
		switch rec[0] {
		case '#', '!':
			continue // headers (# stash), ignored files
		case '?':
			untracked = append(untracked, rec[2:])
			continue
		case '1':
			fields = 8
		case '2':
			fields = 9
		case 'u':
			fields = 10
		default:
			return nil, nil, nil, fmt.Errorf("git status: unexpected entry %q", rec)
		}
		parts := strings.SplitN(rec, " ", fields+1)
		if len(parts) != fields+1 || len(parts[1]) != 2 {
			return nil, nil, nil, fmt.Errorf("git status: unexpected entry %q", rec)
		}
		paths := []string{parts[fields]}
		if rec[0] == '2' && i+1 < len(recs) {
			i++ // a rename or copy: its original path follows
			paths = append(paths, recs[i])
		}
		xy := parts[1]
		unmerged = unmerged || rec[0] == 'u'
		if xy[0] != '.' || rec[0] == 'u' {
			staged = append(staged, paths...)
		}
		if xy[1] != '.' {
			unstaged = append(unstaged, paths...)
		}
	}
	if unmerged {
		// Status lists unmerged paths last; the diffs list every path in
		// index (byte) order.
		slices.Sort(staged)
		slices.Sort(unstaged)
	}
	return staged, unstaged, untracked, nil
}

// union appends the lists, dropping duplicates and keeping first-seen order.
func union(lists ...[]string) []string {
	seen := map[string]bool{}
	var all []string
	for _, l := range lists {
		for _, f := range l {
			if !seen[f] {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	return all
}

// checkRef refuses revisions that git could read as options.
func checkRef(kind, ref string) error {
	if strings.HasPrefix(ref, "-") {
		return fmt.Errorf("invalid %s %q: must not start with '-'", kind, ref)
	}
	return nil
}

// ResolveBase returns the commit the base branch names. In CI, a bare branch
// name (GITHUB_BASE_REF) that is not a local ref is tried as origin/<name>.
func ResolveBase(ctx context.Context, root, base string) (string, error) {
	r, err := ResolveRefs(ctx, root, base, "")
	if err != nil {
		return "", err
	}
	return r.Base, r.BaseErr
}

// ChangedFiles lists the paths changed in the scope of spec:
//   - DiffLocal: base...HEAD ∪ the uncommitted changes (below); without
//     commits, every file of the work tree.
//   - DiffUncommitted: staged (the user's index against HEAD) ∪ every path
//     whose bytes or mode on disk differ from what checking out HEAD
//     writes (see checkoutView), read literally whatever index flags,
//     attributes or configuration say: edits, deletions, new files that
//     are not ignored, and the files of the repositories inside the work
//     tree that differ from what HEAD holds at their path
//     (insideView.changesSince; their directories when the snapshot could
//     not read them all, see TreeSnapshot.Uncertain). In DiffLocal, a
//     gitlink that moved since the merge base is listed the same way.
//   - DiffCommit: the commit against its parent (or the empty tree).
//   - DiffCI: base...Head (Head defaults to HEAD), falling back to HEAD^...HEAD
//     with a warning when the base cannot be resolved.
//   - DiffFixBase: everything that differs between the FixBase snapshot and
//     the work tree now, untracked files included (WorkTree when set).
func ChangedFiles(ctx context.Context, root string, spec gate.DiffSpec) (Changes, error) {
	return ChangedFilesIn(ctx, root, spec, nil)
}

// ChangedFilesIn is ChangedFiles with the snapshot of the work tree to
// read it from (nil: one is taken).
func ChangedFilesIn(ctx context.Context, root string, spec gate.DiffSpec, snap *TreeSnapshot) (Changes, error) {
	switch spec.Mode {
	case gate.DiffUncommitted:
		files, warnings, _, err := uncommittedLiteral(ctx, root, snap)
		return Changes{Files: files, BaseRef: "uncommitted", Warnings: warnings}, err
	case gate.DiffCommit:
		from, to, ref, err := commitRange(ctx, root, spec.Commit)
		if err != nil {
			return Changes{}, err
		}
		files, err := diffNames(ctx, root, from, to, "--")
		return Changes{Files: files, BaseRef: ref}, err
	case gate.DiffCI:
		return ciFiles(ctx, root, spec)
	case gate.DiffFixBase:
		if err := checkRef("snapshot", spec.FixBase); err != nil {
			return Changes{}, err
		}
		tree := spec.WorkTree
		if tree == "" && snap != nil {
			tree = snap.Tree
		}
		if tree == "" {
			var err error
			if tree, err = SnapshotTree(ctx, root); err != nil {
				return Changes{}, err
			}
		}
		files, err := sinceFiles(ctx, root, spec.FixBase, tree)
		if err == nil && snap != nil && snap.Tree == tree && snap.Uncertain == "" {
			files, err = withInsideSince(ctx, root, spec.FixBase, files, snap.inside())
		}
		return Changes{Files: files, BaseRef: spec.FixBase}, err
	case gate.DiffLocal, "":
		return localFiles(ctx, root, spec.BaseBranch, snap)
	}
	return Changes{}, fmt.Errorf("unknown diff mode %q", spec.Mode)
}

// sinceFiles lists the paths (relative to root) that differ between from
// and the snapshot tree tree: from's checkout view when from is a commit
// of the repository, itself when it is an earlier snapshot.
func sinceFiles(ctx context.Context, root, from, tree string) ([]string, error) {
	literal, err := isSnapshotCommit(ctx, root, from)
	if err != nil || literal {
		if err != nil {
			return nil, err
		}
		return diffNames(ctx, root, from, tree, "--")
	}
	_, changed, err := checkoutView(ctx, root, from, tree, false)
	if err != nil {
		return nil, err
	}
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return nil, err
	}
	return underPrefix(changed, pfx), nil
}

// isSnapshotCommit reports whether rev names a snapshot commit (see
// CommitTreeOn), whose tree holds the work tree as it was on disk.
func isSnapshotCommit(ctx context.Context, root, rev string) (bool, error) {
	objs, err := Objects(ctx, root, rev+"^{commit}")
	if err != nil {
		return false, err
	}
	return snapshotMessageOf(objs[0].Content), nil
}

// snapshotMessageOf reports whether the commit object content carries the
// message of a working-tree snapshot commit.
func snapshotMessageOf(content []byte) bool {
	msg := content
	if i := bytes.Index(msg, []byte("\n\n")); i >= 0 {
		msg = msg[i+2:]
	}
	return bytes.HasPrefix(msg, []byte(snapshotMessage))
}

// uncommittedLiteral lists the uncommitted changes (see ChangedFiles) from
// snap, or from a snapshot it takes; when the work tree cannot be read
// literally, git's own listing stands in, with a warning. inside is the
// snapshot's view of the repositories inside the work tree, when it read
// them all.
func uncommittedLiteral(ctx context.Context, root string, snap *TreeSnapshot) (files, warnings []string, inside *insideView, err error) {
	// The snapshot, HEAD and the staged paths are asked at once.
	var head string
	var staged []string
	var snapErr error
	own := snap == nil
	err = parallel(func() error {
		if own {
			snap, snapErr = NewTreeSnapshot(ctx, root)
		}
		return nil
	}, func() error {
		var err error
		head, err = Head(ctx, root)
		return err
	}, func() error {
		var err error
		staged, err = diffNames(ctx, root, "--cached", "--")
		return err
	})
	if own && snapErr == nil {
		defer snap.Close()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if snapErr != nil {
		if errors.Is(snapErr, ErrGitMissing) || errors.Is(snapErr, ErrRepository) || ctx.Err() != nil {
			return nil, nil, nil, snapErr
		}
		files, serr := uncommittedFiles(ctx, root)
		return files, []string{fmt.Sprintf("Warning: the work tree could not be read as it is on disk (%v); its changes are those git lists", snapErr)}, nil, serr
	}
	from := head
	if from == "" {
		from = emptyTree
	}
	raw, err := snap.rawDiffIndex(ctx, from)
	if err != nil {
		return nil, nil, nil, err
	}
	_, changed, err := checkoutViewOf(ctx, snap.disk.top, from, raw, snap.noAttributesInTree())
	if err != nil {
		return nil, nil, nil, err
	}
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return nil, nil, nil, err
	}
	if snap.Uncertain != "" {
		// Not every repository inside could be read: every file on disk
		// in each of them stands for what changed there.
		dirs, err := snap.dirtyNested(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		inside, err := filesUnder(snap.disk.top, dirs)
		if err != nil {
			return nil, nil, nil, err
		}
		staged = withoutNested(staged, underPrefix(slices.Clone(dirs), pfx))
		left := underPrefix(withoutNested(snap.leftTop, dirs), pfx)
		return union(staged, underPrefix(union(withoutNested(changed, dirs), inside), pfx), left), nil, nil, nil
	}
	view := snap.inside()
	files, err = view.changesSince(ctx, head)
	if err != nil {
		return nil, nil, nil, err
	}
	staged = withoutNested(staged, underPrefix(slices.Clone(view.all), pfx))
	left := underPrefix(withoutNested(snap.leftTop, view.all), pfx)
	return union(staged, underPrefix(union(withoutNested(changed, view.all), files), pfx), left), nil, &view, nil
}

// withInside replaces, in committed (paths relative to root), the
// repositories inside the work tree by their files that differ from what
// the merge base of base and HEAD holds at their path (see
// insideView.changesSince): a commit that moved a gitlink names its
// directory.
func withInside(ctx context.Context, root, base string, committed []string, inside *insideView) ([]string, error) {
	if inside == nil || len(inside.repos) == 0 {
		return committed, nil
	}
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return nil, err
	}
	kept := withoutNested(committed, underPrefix(slices.Clone(inside.all), pfx))
	if len(kept) == len(committed) {
		return committed, nil
	}
	mb, _, err := run(ctx, call{root: root, args: []string{"merge-base", base, "HEAD"}})
	if err != nil {
		return nil, err
	}
	files, err := inside.changesSince(ctx, strings.TrimSpace(string(mb)))
	if err != nil {
		return nil, err
	}
	return union(kept, underPrefix(files, pfx)), nil
}

// withInsideSince replaces, in files (paths relative to root, listed
// since from), the repositories inside the work tree by their files that
// differ from what from holds at their path (see
// insideView.changesSince).
func withInsideSince(ctx context.Context, root, from string, files []string, inside insideView) ([]string, error) {
	if len(inside.repos) == 0 {
		return files, nil
	}
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return nil, err
	}
	since, err := inside.changesSince(ctx, from)
	if err != nil {
		return nil, err
	}
	return union(withoutNested(files, underPrefix(slices.Clone(inside.all), pfx)), underPrefix(since, pfx)), nil
}

// localFiles is base...HEAD ∪ the uncommitted changes. The committed diff
// names the base branch directly and runs next to the snapshot; when git
// cannot resolve that (no commits yet, a base only found as origin/<base>,
// an unknown base), the careful path below decides and explains.
func localFiles(ctx context.Context, root, base string, snap *TreeSnapshot) (Changes, error) {
	if checkRef("base branch", base) != nil {
		return localFilesResolved(ctx, root, base, snap)
	}
	var committed, rest, warnings []string
	var inside *insideView
	var committedErr error
	err := parallel(func() error {
		var err error
		rest, warnings, inside, err = uncommittedLiteral(ctx, root, snap)
		return err
	}, func() error {
		committed, committedErr = diffNames(ctx, root, base+"...HEAD", "--")
		return nil
	})
	if err != nil {
		return Changes{}, err
	}
	if committedErr != nil {
		if errors.Is(committedErr, ErrGitMissing) || ctx.Err() != nil {
			return Changes{}, committedErr
		}
		return localFilesResolved(ctx, root, base, snap)
	}
	if committed, err = withInside(ctx, root, base, committed, inside); err != nil {
		return Changes{}, err
	}
	return Changes{Files: union(committed, rest), BaseRef: base, Warnings: warnings}, nil
}

// localFilesResolved is localFiles one step at a time: HEAD, then the base
// (with the origin/ fallback), then the diffs.
func localFilesResolved(ctx context.Context, root, base string, snap *TreeSnapshot) (Changes, error) {
	head, err := Head(ctx, root)
	if err != nil {
		return Changes{}, err
	}
	if head == "" {
		// No commits: nothing to compare with; everything present is new.
		files, warnings, _, err := uncommittedLiteral(ctx, root, snap)
		return Changes{Files: files, BaseRef: "root", Warnings: warnings}, err
	}
	baseSHA, err := ResolveBase(ctx, root, base)
	if err != nil {
		return Changes{}, err
	}
	committed, err := diffNames(ctx, root, baseSHA+"..."+head, "--")
	if err != nil {
		return Changes{}, noMergeBase(ctx, root, base, err)
	}
	rest, warnings, inside, err := uncommittedLiteral(ctx, root, snap)
	if err != nil {
		return Changes{}, err
	}
	if committed, err = withInside(ctx, root, baseSHA, committed, inside); err != nil {
		return Changes{}, err
	}
	return Changes{Files: union(committed, rest), BaseRef: base, Warnings: warnings}, nil
}

// commitRange returns the from and to revisions of a --commit diff and the
// base_ref label.
func commitRange(ctx context.Context, root, commit string) (from, to, label string, err error) {
	if err := checkRef("commit", commit); err != nil {
		return "", "", "", err
	}
	sha, err := ResolveCommit(ctx, root, commit)
	if err != nil {
		return "", "", "", err
	}
	if sha == "" {
		return "", "", "", &CommitNotFoundError{Commit: commit}
	}
	parent, err := ResolveCommit(ctx, root, sha+"^")
	if err != nil {
		return "", "", "", err
	}
	if parent == "" {
		return emptyTree, sha, "root", nil
	}
	return parent, sha, commit + "^", nil
}

// ciHead is the commit CI compares: spec.Head when it resolves, else HEAD.
func ciHead(ctx context.Context, root string, spec gate.DiffSpec) (string, error) {
	if spec.Head != "" && checkRef("head", spec.Head) == nil {
		sha, err := ResolveCommit(ctx, root, spec.Head)
		if err != nil || sha != "" {
			return sha, err
		}
	}
	head, err := Head(ctx, root)
	if err != nil {
		return "", err
	}
	if head == "" {
		return "", ErrNoCommits
	}
	return head, nil
}

// ciRange returns the from and to revisions of a CI diff, its label and a
// warning when the base had to be replaced by HEAD^.
func ciRange(ctx context.Context, root string, spec gate.DiffSpec) (from, to, label, warning string, err error) {
	head, err := ciHead(ctx, root, spec)
	if err != nil {
		return "", "", "", "", err
	}
	base, berr := ResolveBase(ctx, root, spec.BaseBranch)
	if berr == nil {
		mb, _, err := run(ctx, call{root: root, args: []string{"merge-base", base, head}, okCodes: []int{1}})
		if err != nil && !errors.As(err, new(*CommandError)) {
			return "", "", "", "", err
		}
		if m := strings.TrimSpace(string(mb)); err == nil && m != "" {
			return m, head, spec.BaseBranch, "", nil
		}
		berr = fmt.Errorf("no merge base between %s and %s", spec.BaseBranch, head)
	} else if !errors.As(berr, new(*BaseBranchError)) {
		return "", "", "", "", berr
	}
	warning = fmt.Sprintf("Warning: cannot diff against %s (%v); using HEAD^...HEAD", spec.BaseBranch, berr)
	parent, err := ResolveCommit(ctx, root, head+"^")
	if err != nil {
		return "", "", "", "", err
	}
	if parent == "" {
		return emptyTree, head, "root", warning, nil
	}
	return parent, head, "HEAD^", warning, nil
}

func ciFiles(ctx context.Context, root string, spec gate.DiffSpec) (Changes, error) {
	from, to, label, warning, err := ciRange(ctx, root, spec)
	if err != nil {
		return Changes{}, err
	}
	files, err := diffNames(ctx, root, from, to, "--")
	ch := Changes{Files: files, BaseRef: label}
	if warning != "" {
		ch.Warnings = append(ch.Warnings, warning)
	}
	return ch, err
}
