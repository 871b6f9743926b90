package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// emptyPrefix opens the part of a Key that names the empty directories of
// the work tree: git holds no directory, yet a gate sees one (a workspace
// glob `crates/*` that finds a member without a manifest, a layout lint).
const emptyPrefix = "empty:"

// The directories git lists no file under. A gate sees every directory of
// the work tree; git holds files only. The invariant: every directory a
// gate can see that git lists no file under and that the ignore rules do
// not leave out is in the Key, together with each of its subdirectories
// they do not leave out, at any depth and whatever else they hold (an
// ignored file or directory, a FIFO, a socket, a device, a repository),
// in the work tree and in every repository inside it (whose own snapshot
// holds its own, folded in by foldEmpty; there its own ignore rules leave
// out nothing, as for its files: see Retake). A directory whose only
// entries are FIFOs, sockets, devices or empty repositories is held like
// an empty one, so its appearance and its removal change the Key; the
// top of a repository inside (a gitlink, one git left out for having no
// commit) that holds no file nor link is held as such, one that holds
// some is not (its files are its own snapshot's: a gate sees no empty
// directory there, and a directory holding it holds a file). The limits: a directory that
// holds an ignored file is not held itself (a directory holding only
// ignored files is no change), though its subdirectories are; a new FIFO
// in a directory that holds files is no change; the log directory is left
// out.

// takeEmpty sets s.ownEmpty to the identity of the directories of the
// work tree git lists no file under (see above; "" for none). indexDirs
// are the directories of the snapshot's index but the top level; each
// one's entries are read (as `git add -A` read them), and a directory
// there that no index path is under is a candidate. When there is one,
// git is asked once which entries under the candidates its ignore rules
// leave out (ignoredEntries; a nested repository's snapshot never asks, as
// its rules hide nothing), and each candidate that is not ignored is read
// with its subdirectories that are not. A work tree where every directory
// holds a file git lists costs no git process.
//
// The same reads meet the entries named .git in the directories no index
// path is under: each one that is no repository git reads (no gitlink, no
// repository git named as left out), not ignored, is left out like those
// dotGitEntries finds (see unlistedDotGit).
//
// A walk that met no entry named .git is remembered beside the kept index
// with its answer; known says the memo stands for this one (see
// walkKnown), whose answer is then taken: a steady stop stats the
// directories (and, when git was asked, the ignore rules' files) instead
// of reading them and asking git.
func (s *TreeSnapshot) takeEmpty(ctx context.Context, indexDirs []string, known bool, answer string) error {
	if known {
		s.ownEmpty = answer
		return nil
	}
	s.ownEmpty = ""
	dirs := map[string]bool{"": true}
	for _, d := range indexDirs {
		dirs[d] = true
	}
	repos := s.repoDirs()
	w := s.newDirWalk(indexDirs, repos)
	held := map[string]byte{}
	var cands []string
	for _, d := range append([]string{""}, indexDirs...) {
		abs := filepath.Join(s.disk.top, filepath.FromSlash(d))
		ents, err := w.readDir(abs, d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if d != "" && e.Name() == ".git" {
				w.keep = false // dotGitEntries finds it: the walk stands for no later one
			}
			if !e.IsDir() || e.Name() == ".git" {
				continue
			}
			rel := path.Join(d, e.Name())
			switch {
			case dirs[rel] || s.leftOutDir(filepath.Join(abs, e.Name())):
			case repos[rel]:
				if w.fileless(filepath.Join(abs, e.Name()), rel) {
					held[rel] = 'r'
				}
			default:
				cands = append(cands, rel)
			}
		}
	}
	var ignored map[string]byte
	if len(cands) > 0 && s.depth == 0 {
		w.seeRules(s.disk)
		var err error
		if ignored, err = s.ignoredEntries(ctx, cands); err != nil {
			s.forgetWalk()
			return err
		}
	}
	var dots []string
	for _, c := range cands {
		if ignored[c] == 0 && w.holds(filepath.Join(s.disk.top, filepath.FromSlash(c)), c, repos, ignored, held, &dots) {
			held[c] = 'd'
		}
	}
	dots = s.unlistedDotGit(dots)
	s.leaveOutDotGit(dots)
	if len(held) > 0 {
		h := sha256.New()
		for _, p := range slices.Sorted(maps.Keys(held)) {
			fmt.Fprintf(h, "%s\x00%c\x00", p, held[p])
		}
		s.ownEmpty = hex.EncodeToString(h.Sum(nil))
	}
	if len(dots) > 0 {
		s.forgetWalk()
		return nil
	}
	s.noteWalk(w, s.ownEmpty)
	return nil
}

// holds adds to held each subdirectory of the directory p (rel from the
// top level) that ignored does not name, at any depth, and each top of a
// repository among them (repos) that holds no file (fileless); each
// directory it reads that holds an entry named .git (any spelling) adds
// that entry to dots. It reports whether p holds no file ignored names
// nor a repository holding files (a directory that does is not held
// itself).
func (w *dirWalk) holds(p, rel string, repos map[string]bool, ignored map[string]byte, held map[string]byte, dots *[]string) bool {
	ents, err := w.readDir(p, rel)
	if err != nil {
		return true
	}
	plain := true
	for _, e := range ents {
		sub := path.Join(rel, e.Name())
		if strings.EqualFold(e.Name(), ".git") {
			*dots = append(*dots, sub)
		}
		if ignored[sub] == 'f' {
			plain = false
		}
		if !e.IsDir() || e.Name() == ".git" || ignored[sub] != 0 {
			continue
		}
		if repos[sub] {
			if w.fileless(filepath.Join(p, e.Name()), sub) {
				held[sub] = 'r'
			} else {
				plain = false // its files are its own snapshot's, as a file
			}
			continue
		}
		if w.holds(filepath.Join(p, e.Name()), sub, repos, ignored, held, dots) {
			held[sub] = 'd'
		}
	}
	return plain
}

// fileless reports whether the top of a repository inside the work tree,
// p (rel from the top level), holds no file and no link at any depth, its
// .git aside: such a repository is a directory a gate sees empty, held
// like one. One that holds a file is no empty directory to any gate: its
// files are its own snapshot's, and its appearance changes no key of a
// gate scoped elsewhere.
func (w *dirWalk) fileless(p, rel string) bool {
	ents, err := w.readDir(p, rel)
	if err != nil {
		return true
	}
	for _, e := range ents {
		switch {
		case strings.EqualFold(e.Name(), ".git"):
		case e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0:
			return false
		case e.IsDir() && !w.fileless(filepath.Join(p, e.Name()), path.Join(rel, e.Name())):
			return false
		}
	}
	return true
}

// repoDirs are the top-level-relative tops of the repositories inside the
// work tree git named: its gitlinks, and those it left out for having no
// commit.
func (s *TreeSnapshot) repoDirs() map[string]bool {
	repos := map[string]bool{}
	for _, p := range s.gitlinks {
		repos[p] = true
	}
	for _, l := range s.leftTop {
		if d, ok := strings.CutSuffix(l, "/"); ok {
			repos[d] = true
		}
	}
	return repos
}

// foldEmpty sets s.empty to the identity of the directories git lists no
// file under in the work tree (ownEmpty) and in each repository inside it
// whose snapshot holds some, by its path; "" when there are none.
func (s *TreeSnapshot) foldEmpty() {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", s.ownEmpty)
	some := s.ownEmpty != ""
	for _, p := range slices.Sorted(maps.Keys(s.nested)) {
		if e := s.nested[p].empty; e != "" {
			some = true
			fmt.Fprintf(h, "%s\x00%s\x00", p, e)
		}
	}
	s.empty = ""
	if some {
		s.empty = hex.EncodeToString(h.Sum(nil))
	}
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

// ignoredEntries is what the ignore rules leave out of the top-level-
// relative directories dirs and below them, as `git status
// --ignored=matching` names it (a directory a rule matches, not what is
// in it), each path without a trailing slash: 'd' for a directory, 'f'
// for anything else.
func (s *TreeSnapshot) ignoredEntries(ctx context.Context, dirs []string) (map[string]byte, error) {
	args := []string{"--no-optional-locks", "status", "--porcelain", "-z", "--ignored=matching",
		"--untracked-files=all", "--ignore-submodules=all", "--no-renames", "--"}
	for _, p := range dirs {
		args = append(args, ":(literal,top)"+p)
	}
	out, _, err := run(ctx, s.disk.call(s.disk.top, s.index, args...))
	if err != nil {
		return nil, fmt.Errorf("snapshot: empty directories: %w", err)
	}
	ignored := map[string]byte{}
	for _, rec := range splitZ(out) {
		if p, ok := strings.CutPrefix(rec, "!! "); ok {
			if d, ok := strings.CutSuffix(p, "/"); ok {
				ignored[d] = 'd'
			} else {
				ignored[p] = 'f'
			}
		}
	}
	return ignored, nil
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
// .git dots (each in a directory the ignore rules do not leave out).
func (s *TreeSnapshot) leaveOutDotGit(dots []string) {
	for _, p := range dots {
		if !slices.Contains(s.leftTop, p) {
			s.leftTop = append(s.leftTop, p)
			s.LeftOut = append(s.LeftOut, underPrefix([]string{p}, s.disk.prefix)...)
		}
	}
}
