package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// Repositories inside the work tree. git holds a repository of its own
// inside a work tree (a clone, a submodule) as a gitlink, the commit its
// HEAD names, and one without a commit not at all; what its files hold is
// in no tree of the outer repository. A program run in the outer work tree
// reads those files all the same, so KeyTree (what the result cache keys
// by) holds each of them as its own snapshot: its work tree read the same
// literal way, into the outer repository's object store, under its path.

// Bounds of the nesting that KeyTree follows; deeper or more makes it
// uncertain.
const (
	maxNestedDepth = 4
	maxNested      = 64
)

// keySuffix names, next to a kept index, the note of the KeyTree made for
// its Tree and nested trees.
const keySuffix = ".key"

// indexFacts are what a snapshot's index holds that its tree's users need:
// the paths of its gitlinks and of its symbolic links, and whether it holds
// a .gitattributes file; racy is true when an entry's cached stat changed
// since the mark readIndexFacts was given (gitindex.Entry.ChangedSince);
// dirs are the directories below the top level that hold an entry on
// the disk, at any depth (see dotGitEntries).
type indexFacts struct {
	gitlinks, links, dirs []string
	attrs, racy           bool
}

// readIndexFacts reads the facts of the index file p (none when there is
// no file), racy ones against mark.
func readIndexFacts(p string, mark time.Time) (indexFacts, error) {
	var f indexFacts
	idx, err := gitindex.Read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	seen := map[string]bool{}
	for _, e := range idx.Entries {
		if e.Mode == gitindex.ModeGitlink && e.Stage() == 0 {
			f.gitlinks = append(f.gitlinks, e.Path)
		}
		if e.Mode == gitindex.ModeSymlink && e.Stage() == 0 {
			f.links = append(f.links, e.Path)
		}
		f.attrs = f.attrs || isAttributesPath(e.Path)
		f.racy = f.racy || e.ChangedSince(mark)
		if !e.SkipWorktree() {
			// An entry sparse keeps off the disk (skip-worktree, its file
			// absent: mergeSeed) puts no directory on it: its directory is
			// looked at as the disk has it (takeEmpty), absent, empty, or
			// holding what git lists nothing for.
			f.dirs = appendDirs(f.dirs, seen, e.Path)
		}
	}
	return f, nil
}

// takeNested snapshots the repositories inside the work tree and sets
// KeyTree (or Uncertain).
func (s *TreeSnapshot) takeNested(ctx context.Context) error {
	s.KeyTree, s.Uncertain = "", ""
	dirs := slices.Clone(s.gitlinks)
	for _, l := range s.leftTop {
		d, ok := strings.CutSuffix(l, "/")
		if !ok {
			s.Uncertain = fmt.Sprintf("%s cannot be read", l)
			if isDotGitEntry(l) {
				s.Uncertain = fmt.Sprintf("%s is named .git but is no repository git reads: git never lists it", l)
			}
			return nil
		}
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	trees := map[string]string{}
	for _, p := range dirs {
		tree, why := s.nestedTree(ctx, p)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if why != "" {
			s.Uncertain = why
			return nil
		}
		if tree != "" {
			trees[p] = tree
		}
	}
	for p, n := range s.nested {
		if _, ok := trees[p]; !ok {
			n.Close()
			delete(s.nested, p)
		}
	}
	if len(trees) == 0 && len(s.Hidden) == 0 {
		s.KeyTree = s.Tree
		return nil
	}
	tree, err := s.keyTree(ctx, trees)
	if err != nil {
		s.Uncertain = err.Error()
		return nil
	}
	s.KeyTree = tree
	return nil
}

// nestedTree is the KeyTree of the repository at the top-level-relative
// path p, "" when nothing is there to read (a gitlink whose directory is
// missing or empty); why says what makes it uncertain.
func (s *TreeSnapshot) nestedTree(ctx context.Context, p string) (tree, why string) {
	dir := filepath.Join(s.disk.top, filepath.FromSlash(p))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return "", ""
	}
	if err != nil {
		return "", fmt.Sprintf("%s cannot be read: %v", p, err)
	}
	gitDir, ok := nestedGitDir(dir)
	if !ok {
		return "", fmt.Sprintf("%s holds files but no repository git can read", p)
	}
	if s.depth+1 >= maxNestedDepth || len(s.nested) >= maxNested {
		return "", fmt.Sprintf("%s: repositories nested too deep or too many", p)
	}
	n, err := s.nestedSnapshot(ctx, p, dir, gitDir)
	if err != nil {
		return "", fmt.Sprintf("%s: %v", p, err)
	}
	if n.KeyTree == "" {
		return "", fmt.Sprintf("%s: %s", p, n.Uncertain)
	}
	return n.KeyTree, ""
}

// nestedGitDir is the git directory of the repository whose work tree is
// dir: dir/.git, or the directory a .git file names; ok is false when
// neither is a git directory.
func nestedGitDir(dir string) (string, bool) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	if fi.Mode().IsRegular() {
		data, err := fsread.File(p, maxGitFile)
		if err != nil {
			return "", false
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !ok {
			return "", false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = target
	} else if !fi.IsDir() {
		return "", false
	}
	if !fileExists(filepath.Join(p, "HEAD")) {
		return "", false
	}
	return filepath.Clean(p), true
}

// nestedSnapshot snapshots the repository at p (work tree dir, git
// directory gitDir): its objects are written to this snapshot's object
// store, its indexes kept in this snapshot's store when this one keeps its
// own.
func (s *TreeSnapshot) nestedSnapshot(ctx context.Context, p, dir, gitDir string) (*TreeSnapshot, error) {
	if n, ok := s.nested[p]; ok && n.disk.gitDir == gitDir {
		return n, n.Retake(ctx)
	}
	common := commonDirOf(gitDir)
	sum := sha256.Sum256([]byte(dir))
	base := filepath.Join(s.store, "nested", hex.EncodeToString(sum[:8]))
	// No alternate: every object of its snapshot must be in this one's
	// store (git would not copy one it finds elsewhere), and mergeSeed
	// takes no object id from its own index.
	d := &diskRepo{top: dir, gitDir: gitDir, commonDir: common, objects: s.disk.objects,
		alternates: s.disk.alternates, shadow: filepath.Join(base, "literal"), owner: filepath.Dir(s.store)}
	n := &TreeSnapshot{root: dir, disk: d, user: filepath.Join(gitDir, "index"),
		store: s.store, depth: s.depth + 1}
	if err := d.prepare(ctx); err != nil {
		return nil, err
	}
	if d.objectFormat() != s.disk.objectFormat() {
		return nil, fmt.Errorf("a repository of another object format (%s)", d.objectFormat())
	}
	kept := ""
	if s.kept != "" {
		kept = filepath.Join(base, "index")
	}
	if err := n.open(ctx, kept); err != nil {
		return nil, err
	}
	if s.nested == nil {
		s.nested = map[string]*TreeSnapshot{}
	}
	if old := s.nested[p]; old != nil {
		old.Close()
	}
	s.nested[p] = n
	return n, nil
}

// keyTree makes KeyTree: Tree with the gitlinks of trees replaced by those
// trees (and the repositories left out added), the hidden paths removed.
// A kept snapshot notes it for the same inputs.
func (s *TreeSnapshot) keyTree(ctx context.Context, trees map[string]string) (string, error) {
	paths := make([]string, 0, len(trees))
	for p := range trees {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	io.WriteString(h, s.Tree+"\n")
	for _, p := range paths {
		io.WriteString(h, p+"\x00"+trees[p]+"\n")
	}
	for _, p := range s.Hidden {
		io.WriteString(h, "-"+p+"\x00")
	}
	sig := hex.EncodeToString(h.Sum(nil))
	if s.kept != "" {
		if data, err := fsread.File(s.kept+keySuffix, maxOwnFile); err == nil {
			if noted, tree, ok := strings.Cut(strings.TrimSpace(string(data)), " "); ok && noted == sig && isSHA(tree) {
				return tree, nil
			}
		}
	}
	if err := storeDir(s.store, s.store); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(s.store, "gauntlet-key-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyFile(s.index, index); err != nil {
		return "", err
	}
	var remove strings.Builder
	for _, p := range s.Hidden {
		remove.WriteString(p + "\x00")
	}
	for _, p := range paths {
		if slices.Contains(s.gitlinks, p) {
			remove.WriteString(p + "\x00")
		}
	}
	if remove.Len() > 0 {
		c := s.disk.call(s.disk.top, index, "update-index", "--force-remove", "-z", "--stdin")
		c.stdin = remove.String()
		if _, _, err := run(ctx, c); err != nil {
			return "", err
		}
	}
	for _, p := range paths {
		if _, _, err := run(ctx, s.disk.call(s.disk.top, index, "read-tree", "--prefix="+p+"/", trees[p])); err != nil {
			return "", err
		}
	}
	out, _, err := run(ctx, s.disk.call(s.disk.top, index, "write-tree"))
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	if s.kept != "" {
		_ = writeIfDiffers(s.kept+keySuffix, []byte(sig+" "+tree+"\n"))
	}
	return tree, nil
}

// copyFile copies the file src to dst (a temporary file renamed over
// it: a link at dst is replaced, never written through).
func copyFile(src, dst string) error {
	data, err := fsread.File(src, maxGitFile)
	if err != nil {
		return err
	}
	return atomicfile.WriteUnsynced(dst, data, 0o644)
}

// dirtyNested lists the repositories inside the work tree (paths relative
// to the top level) whose work tree differs from their HEAD's tree: every
// one of them when the snapshot could not read them all.
func (s *TreeSnapshot) dirtyNested(ctx context.Context) ([]string, error) {
	var dirty []string
	if s.Uncertain != "" {
		dirty = slices.Clone(s.gitlinks)
		for _, l := range s.leftTop {
			if d, ok := strings.CutSuffix(l, "/"); ok {
				dirty = append(dirty, d)
			}
		}
		return dirty, nil
	}
	for p, n := range s.nested {
		out, _, err := run(ctx, call{root: n.disk.top, unset: literalEnvUnset, okCodes: []int{1, 128},
			args: []string{"rev-parse", "-q", "--verify", "HEAD^{tree}"}})
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(string(out)) != n.Tree {
			dirty = append(dirty, p)
		}
	}
	slices.Sort(dirty)
	return dirty, nil
}

// nestedPaths are the top-level-relative paths of the repositories inside
// the work tree that the snapshot read, at every depth.
func (s *TreeSnapshot) nestedPaths() []string {
	var paths []string
	for p, n := range s.nested {
		paths = append(paths, p)
		for _, q := range n.nestedPaths() {
			paths = append(paths, p+"/"+q)
		}
	}
	slices.Sort(paths)
	return paths
}

// insideView is what listing the files of the repositories inside a work
// tree takes, read from its snapshot (see TreeSnapshot.inside).
type insideView struct {
	// outer is the work tree's repository, whose object store holds the
	// snapshots of the repositories inside.
	outer *diskRepo
	// repos are the repositories inside, by top-level-relative path; all
	// are their paths at every depth, sorted.
	repos map[string]insideRepo
	all   []string
}

// insideRepo is one repository inside: its KeyTree, and its own object
// directory (where the commits its gitlinks name are).
type insideRepo struct{ keyTree, objects string }

// inside is the view of the repositories inside the work tree that the
// snapshot read.
func (s *TreeSnapshot) inside() insideView {
	v := insideView{outer: s.disk, repos: map[string]insideRepo{}, all: s.nestedPaths()}
	for p, n := range s.nested {
		v.repos[p] = insideRepo{keyTree: n.KeyTree, objects: filepath.Join(n.disk.commonDir, "objects")}
	}
	return v
}

// changesSince lists, relative to the top level, the files of the
// repositories inside the work tree that differ from what the commit rev
// of the outer repository ("" for none) holds at their path: the tree of
// the commit its gitlink names, or nothing at all where it holds no
// gitlink (or git cannot read that commit): every file of a repository the
// outer one does not track is new, as an untracked file is. What each
// holds is its KeyTree, so a commit made inside it changes nothing here
// and its own ignore rules hide nothing (see Retake). The repositories'
// own paths are never listed: they are directories, not files.
func (v insideView) changesSince(ctx context.Context, rev string) ([]string, error) {
	if len(v.repos) == 0 {
		return nil, nil
	}
	paths := make([]string, 0, len(v.repos))
	for p := range v.repos {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	links, err := v.gitlinks(ctx, rev, paths)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range paths {
		inside, err := v.diffFrom(ctx, v.repos[p], links[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, f := range inside {
			if f = p + "/" + f; !slices.Contains(v.all, f) {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// gitlinks are the commits the gitlinks of rev name at paths (relative
// to the top level), by path; none when rev is "".
func (v insideView) gitlinks(ctx context.Context, rev string, paths []string) (map[string]string, error) {
	links := map[string]string{}
	if rev == "" {
		return links, nil
	}
	args := append([]string{"ls-tree", "-z", "--full-tree", rev, "--"}, paths...)
	out, _, err := run(ctx, v.outer.call(v.outer.top, "", args...))
	if err != nil {
		return nil, err
	}
	for _, rec := range splitZ(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[0] == "160000" && isSHA(f[2]) {
			links[p] = f[2]
		}
	}
	return links, nil
}

// diffFrom lists the paths of r's KeyTree that differ from the tree of
// commit (relative to r's top level): every path when commit is "" or its
// objects cannot be read.
func (v insideView) diffFrom(ctx context.Context, r insideRepo, commit string) ([]string, error) {
	d := *v.outer
	d.alternates = append(slices.Clone(v.outer.alternates), r.objects)
	diff := func(from string) ([]string, error) {
		out, _, err := run(ctx, d.call(d.top, "", "diff-tree", "-r", "-z", "--name-only", "--no-renames", from, r.keyTree, "--"))
		return splitZ(out), err
	}
	if commit != "" {
		files, err := diff(commit)
		if err == nil || ctx.Err() != nil {
			return files, err
		}
	}
	return diff(emptyTree)
}

// withoutNested drops from paths (top-level-relative, a directory with or
// without its trailing slash) the repositories inside the work tree: what
// they hold is listed file by file (insideView.changesSince).
func withoutNested(paths, nested []string) []string {
	kept := paths[:0:0]
	for _, p := range paths {
		if !slices.Contains(nested, strings.TrimSuffix(p, "/")) {
			kept = append(kept, p)
		}
	}
	return kept
}

// filesUnder lists the files (and symbolic links) on disk below the
// directories dirs of the work tree at top (paths relative to top, as the
// result is), leaving out every .git: what a repository inside holds when
// no snapshot could read it.
func filesUnder(top string, dirs []string) ([]string, error) {
	var files []string
	for _, d := range dirs {
		root := filepath.Join(top, filepath.FromSlash(d))
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil && e.Name() == ".git" && p != root {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if err == nil && e.IsDir() {
				return nil
			}
			// A file, or a directory that cannot be read: it stands for
			// itself.
			rel, rerr := filepath.Rel(top, p)
			if rerr != nil {
				return rerr
			}
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}
