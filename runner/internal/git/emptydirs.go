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

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// emptyPrefix opens the part of a Key that names the empty directories of
// the work tree: git holds no directory, yet a gate sees one (a workspace
// glob `crates/*` that finds a member without a manifest, a layout lint).
const emptyPrefix = "empty:"

// takeEmpty sets s.empty to the identity of the directories of the work
// tree that hold no file, not ignored ("" for none). The directories of
// the snapshot's index are listed from it; each one's entries are read
// (as `git add -A` read them) and a directory there that no index path is
// under is looked into until a file turns up: one whose whole subtree
// holds none is empty. Only those, when there are any, are asked of git
// (which of them its ignore rules leave out), so a work tree without an
// empty directory costs no git process. A repository inside is read whole
// by its own snapshot; its empty directories are not told apart.
func (s *TreeSnapshot) takeEmpty(ctx context.Context) error {
	s.empty = ""
	if s.depth > 0 {
		return nil
	}
	idx, err := gitindex.Read(s.index)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("snapshot: empty directories: %w", err)
	}
	dirs := map[string]bool{"": true}
	for _, e := range idx.Entries {
		for d := path.Dir(e.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var found []string
	inside := map[string][]string{}
	for d := range dirs {
		found = append(found, s.emptyBelow(d, dirs, inside)...)
	}
	if len(found) == 0 {
		return nil
	}
	slices.Sort(found)
	shown, err := s.notIgnored(ctx, found)
	if err != nil {
		return err
	}
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
// hold no file (see holdsNothing), and notes in inside the directories
// each holds.
func (s *TreeSnapshot) emptyBelow(d string, dirs map[string]bool, inside map[string][]string) []string {
	abs := filepath.Join(s.disk.top, filepath.FromSlash(d))
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range ents {
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		rel := path.Join(d, e.Name())
		if dirs[rel] || s.leftOutDir(filepath.Join(abs, e.Name())) {
			continue
		}
		var in []string
		if holdsNothing(filepath.Join(abs, e.Name()), "", &in) {
			found = append(found, rel)
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
// directory the walk started from, rel being p's; in read order, which
// os.ReadDir sorts); it stops at the first other entry (a git directory
// counts as one), so an ignored tree full of files costs a read or two.
func holdsNothing(p, rel string, in *[]string) bool {
	ents, err := os.ReadDir(p)
	if err != nil {
		return false
	}
	for _, e := range ents {
		sub := path.Join(rel, e.Name())
		if !e.IsDir() || e.Name() == ".git" {
			return false
		}
		*in = append(*in, sub)
		if !holdsNothing(filepath.Join(p, e.Name()), sub, in) {
			return false
		}
	}
	return true
}

// notIgnored is those of the empty directories dirs (top-level-relative)
// that the ignore rules do not leave out, as git lists them.
func (s *TreeSnapshot) notIgnored(ctx context.Context, dirs []string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--directory", "--"}
	for _, d := range dirs {
		args = append(args, ":(literal,top)"+d)
	}
	out, _, err := run(ctx, s.disk.call(s.disk.top, s.index, args...))
	if err != nil {
		return nil, fmt.Errorf("snapshot: empty directories: %w", err)
	}
	var shown []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimSuffix(p, "/"); p != "" {
			shown = append(shown, p)
		}
	}
	return shown, nil
}
