package config

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Messages of the entry point path rules (one source of truth).
const (
	msgEntryLeadsOut = "must stay inside the project root (%q leads out of it)"
	msgEntryDotDot   = "must not hold a .. element (write %q)"
	msgEntryLink     = "must not pass through a symbolic link: git lists the files where it leads (%s -> %s%s)"
)

// entryPath is an entry point's path or exclude pattern s in the one
// spelling every comparison with git's paths uses: slash-separated and
// cleaned ("./src", "src/", "src/." and "src//" are all "src"), with the
// problem that makes it unusable ("" when it is fine): absolute, holding a
// ".." element (a pattern says what it matches: "src/sub/.." is refused
// with the spelling to write), or passing through a symbolic link in the
// work tree (git lists the files under the directory the link leads to,
// never under the link, so such an entry point would never apply).
func (p *project) entryPath(s string) (string, string) {
	if filepath.IsAbs(s) || strings.HasPrefix(s, "/") {
		return "", relativeProblem(s, "the project root")
	}
	slash := filepath.ToSlash(s)
	clean := path.Clean(slash)
	for _, el := range strings.Split(slash, "/") {
		if el != ".." {
			continue
		}
		if clean == ".." || strings.HasPrefix(clean, "../") {
			return "", fmt.Sprintf(msgEntryLeadsOut, s)
		}
		return "", fmt.Sprintf(msgEntryDotDot, clean)
	}
	return clean, p.linkProblem(clean)
}

// linkProblem says which component of the fixed part of the clean entry
// path pattern is a symbolic link in the work tree ("" when none is; a
// component that does not exist ends the walk).
func (p *project) linkProblem(pattern string) string {
	fixed := pattern
	if glob.IsGlob(pattern) {
		fixed = glob.FixedDir(pattern)
	}
	if fixed == "." || p == nil || p.root == "" {
		return ""
	}
	parts := strings.Split(fixed, "/")
	for i := range parts {
		rel := strings.Join(parts[:i+1], "/")
		abs := filepath.Join(p.root, filepath.FromSlash(rel))
		fi, err := os.Lstat(abs)
		if err != nil {
			return ""
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, _ := os.Readlink(abs)
		return fmt.Sprintf(msgEntryLink, rel, target, p.spelling(abs, pattern[len(rel):]))
	}
	return ""
}

// spelling suggests the path to write for link (absolute) followed by
// rest: "; write \"lib/x\"" when the link leads inside the project root,
// else "".
func (p *project) spelling(link, rest string) string {
	resolved, err := filepath.EvalSymlinks(link)
	if err != nil {
		return ""
	}
	root, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return fmt.Sprintf("; write %q", path.Clean(filepath.ToSlash(rel)+rest))
}
