package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// emptyPrefix opens the part of a Key that names the empty directories of
// the work tree: git holds no directory, yet a gate sees one (a workspace
// glob `crates/*` that finds a member without a manifest, a layout lint).
const emptyPrefix = "empty:"

// takeEmpty sets s.empty to the identity of the directories of the work
// tree that hold no file, not ignored ("" for none). indexDirs are the
// directories of the snapshot's index but the top level; each one's entries are read
// (as `git add -A` read them) and a directory there that no index path is
// under is looked into until a file turns up: one whose whole subtree
// holds none is empty. Only those, when there are any, are asked of git
// (which of them its ignore rules leave out), so a work tree without an
// empty directory costs no git process. A repository inside is read whole
// by its own snapshot; its empty directories are not told apart.
//
// The same reads meet the entries named .git in those directories that no
// index path is under: each one that is no repository git reads (no
// gitlink, no repository git named as left out), not ignored, is left out
// like those dotGitEntries finds (see unlistedDotGit).
//
// A walk that found neither, in directories of the index none of which
// holds an entry named .git, is remembered beside the kept index; known
// says the memo stands for this one (see walkKnown), which is then
// skipped: a steady stop stats the directories instead of reading them.
func (s *TreeSnapshot) takeEmpty(ctx context.Context, indexDirs []string, known bool) error {
	s.empty = ""
	if s.depth > 0 || known {
		return nil
	}
	if len(indexDirs) == 0 {
		if _, err := os.Lstat(s.index); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	dirs := map[string]bool{"": true}
	for _, d := range indexDirs {
		dirs[d] = true
	}
	w := s.newDirWalk(indexDirs)
	var found, dots []string
	inside := map[string][]string{}
	for _, d := range append([]string{""}, indexDirs...) {
		found = append(found, s.emptyBelow(w, d, dirs, inside, &dots)...)
	}
	dots = s.unlistedDotGit(dots)
	if len(found) == 0 && len(dots) == 0 {
		s.noteWalk(w)
		return nil
	}
	s.forgetWalk()
	slices.Sort(found)
	asked := slices.Clone(found)
	for _, p := range dots {
		asked = append(asked, path.Dir(p))
	}
	shown, err := s.notIgnored(ctx, asked)
	if err != nil {
		return err
	}
	s.leaveOutDotGit(dots, shown)
	shown = slices.DeleteFunc(shown, func(d string) bool { return !slices.Contains(found, d) })
	if len(shown) == 0 {
		return nil
	}
	h := sha256.New()
	for _, d := range shown {
		fmt.Fprintf(h, "%s\x00", d)
		for _, in := range inside[d] {
			fmt.Fprintf(h, "%s/%s\x00", d, in)
		}
	}
	s.empty = hex.EncodeToString(h.Sum(nil))
	return nil
}

// emptyBelow lists the directories right in the index directory d (top-
// level-relative, "" for the top) that no index path is under and that
// hold no file (see holdsNothing), notes in inside the directories each
// holds and adds to dots the entries named .git the walk meets.
func (s *TreeSnapshot) emptyBelow(w *dirWalk, d string, dirs map[string]bool, inside map[string][]string, dots *[]string) []string {
	abs := filepath.Join(s.disk.top, filepath.FromSlash(d))
	ents, err := w.readDir(abs, d)
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range ents {
		if d != "" && e.Name() == ".git" {
			w.keep = false // dotGitEntries finds it: the walk stands for no later one
		}
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		rel := path.Join(d, e.Name())
		if dirs[rel] || s.leftOutDir(filepath.Join(abs, e.Name())) {
			continue
		}
		var in []string
		if w.holdsNothing(filepath.Join(abs, e.Name()), rel, &in, dots) {
			found = append(found, rel)
			for i := range in {
				in[i] = strings.TrimPrefix(in[i], rel+"/")
			}
			inside[rel] = in
		}
	}
	return found
}

// leftOutDir reports whether the absolute directory p is, or is in, what
// the snapshot leaves out (the log directory).
func (s *TreeSnapshot) leftOutDir(p string) bool {
	for _, l := range s.left {
		if _, in := under(l, p); in {
			return true
		}
	}
	return false
}

// holdsNothing reports whether the directory p holds nothing but
// directories that hold nothing, and adds those to in (relative to the
// top level, rel being p's; in read order, which os.ReadDir sorts); it
// stops at the first other entry (a git directory counts as one), so an
// ignored tree full of files costs a read or two. Each directory it reads
// that holds an entry named .git (any spelling) adds that entry to dots.
func (w *dirWalk) holdsNothing(p, rel string, in *[]string, dots *[]string) bool {
	ents, err := w.readDir(p, rel)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), ".git") {
			*dots = append(*dots, path.Join(rel, e.Name()))
		}
	}
	for _, e := range ents {
		sub := path.Join(rel, e.Name())
		if !e.IsDir() || e.Name() == ".git" {
			return false
		}
		*in = append(*in, sub)
		if !w.holdsNothing(filepath.Join(p, e.Name()), sub, in, dots) {
			return false
		}
	}
	return true
}

// notIgnored is those of the empty directories dirs (top-level-relative)
// that the ignore rules do not leave out, as git lists them.
func (s *TreeSnapshot) notIgnored(ctx context.Context, dirs []string) ([]string, error) {
	shown, err := s.listOthers(ctx, false, dirs)
	if err != nil {
		return nil, fmt.Errorf("snapshot: empty directories: %w", err)
	}
	return shown, nil
}

// listOthers is what `git ls-files --others --directory` lists of the
// top-level-relative paths (only what the ignore rules leave out when
// ignored), each directory without its trailing slash.
func (s *TreeSnapshot) listOthers(ctx context.Context, ignored bool, paths []string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--directory", "--"}
	if ignored {
		args = slices.Insert(args, 3, "--ignored")
	}
	for _, p := range paths {
		args = append(args, ":(literal,top)"+p)
	}
	out, _, err := run(ctx, s.disk.call(s.disk.top, s.index, args...))
	if err != nil {
		return nil, err
	}
	var listed []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimSuffix(p, "/"); p != "" {
			listed = append(listed, p)
		}
	}
	return listed, nil
}

// unlistedDotGit keeps of the top-level-relative entries named .git dots
// those git does not read as a repository: the directory of one that is a
// gitlink of the index, or that git named as a repository it left out, is
// one.
func (s *TreeSnapshot) unlistedDotGit(dots []string) []string {
	return slices.DeleteFunc(dots, func(p string) bool {
		d := path.Dir(p)
		return slices.Contains(s.gitlinks, d) || slices.Contains(s.leftTop, d+"/")
	})
}

// leaveOutDotGit leaves out (see dotGitEntries) each of the entries named
// .git dots whose directory git lists among shown (not ignored).
func (s *TreeSnapshot) leaveOutDotGit(dots, shown []string) {
	for _, p := range dots {
		if slices.Contains(shown, path.Dir(p)) && !slices.Contains(s.leftTop, p) {
			s.leftTop = append(s.leftTop, p)
			s.LeftOut = append(s.LeftOut, underPrefix([]string{p}, s.disk.prefix)...)
		}
	}
}
