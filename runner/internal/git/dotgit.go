package git

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Entries named .git that are no repository. git never lists a path
// component named .git: it neither adds one to an index nor names it as
// untracked, and a directory whose .git is no repository git reads (a
// file of any other content, a gitdir to nowhere, a directory without
// HEAD) is an ordinary directory to it, its .git skipped. A program
// reading the tree reads it all the same, so the snapshot looks for one in
// every directory its index holds an entry in and leaves each it finds out
// (LeftOut): a change, never held by a key, named.

// appendDirs appends to dirs the directories of the top-level-relative
// path p (each ancestor below the top level) not yet seen.
func appendDirs(dirs []string, seen map[string]bool, p string) []string {
	start := len(dirs)
	for d := path.Dir(p); d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
		seen[d] = true
		dirs = append(dirs, d)
	}
	slices.Reverse(dirs[start:])
	return dirs
}

// dotGitEntries lists, relative to the top level, the entries named .git
// in the directories dirs of the work tree at top: each is a path git
// skips (a directory that holds an index entry is no repository of its
// own to git, so its .git is none either).
func dotGitEntries(top string, dirs []string) []string {
	var found []string
	for _, d := range dirs {
		p := d + "/.git"
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(p))); err == nil {
			found = append(found, p)
		}
	}
	return found
}

// isDotGitEntry reports whether the top-level-relative path p names an
// entry called .git (see dotGitEntries).
func isDotGitEntry(p string) bool {
	return p == ".git" || strings.HasSuffix(p, "/.git")
}

// dotGitEntries is dotGitEntries of the snapshot's work tree, none when
// a remembered walk stands for this one (known: see takeEmpty).
func (s *TreeSnapshot) dotGitEntries(dirs []string, known bool) []string {
	if known {
		return nil
	}
	return dotGitEntries(s.disk.top, dirs)
}
