package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Messages of the path rules (one source of truth). The %s verbs are
// filled in by the rule that applies.
const (
	msgOutside      = "must stay inside the project root (%s resolves to %s)"
	msgIsRoot       = "must be a directory inside the project root, not the root itself (%s resolves to it)"
	msgInGauntlet   = "must not be inside the " + Dir + " directory (%s resolves into it)"
	msgInGitDir     = "must not be inside the git directory %s (%s resolves into it)"
	msgGitComponent = "must not be inside a git directory (%s passes through a .git directory)"
	msgNotDir       = "must be a directory (%s is %s)"
	msgThroughFile  = "must be a path of directories (%s is %s)"
	msgWorkTree     = "must not be a git work tree (%s holds .git)"
	msgHoldsGitDir  = "must not hold the git directory %s"
	msgTracked      = "must not hold files tracked by git (%s is tracked): clean would move them"
	msgUnresolvable = "cannot be resolved: %v"
	// msgDefaultLogDir follows a problem of the default log_dir.
	msgDefaultLogDir = "%s (the default log_dir, %s)"
	// msgNoConfigLogDir follows a problem of the log directory clean uses
	// without a configuration.
	msgNoConfigLogDir = "%s (the default log_dir, %s: no %s was found)"
)

// maxSymlinkHops bounds the links followed in resolving one path.
const maxSymlinkHops = 255

// project is what the path rules know about the project root: where it,
// its .gauntlet/ and its git directories really are.
type project struct {
	root     string      // absolute, as loaded
	rootInfo fs.FileInfo // of root, links followed; nil when it cannot be read
	gauntlet fs.FileInfo // of root/.gauntlet; nil when missing
	gitDirs  []landmark  // the git directory and the common one (worktrees)
}

// landmark is a directory the rules compare paths with.
type landmark struct {
	path string
	info fs.FileInfo
}

// newProject inspects root. It runs no process: the git directory is found
// as git finds it (the nearest .git at or above root, a directory or a
// "gitdir:" file, and that directory's commondir file for worktrees).
func newProject(root string) *project {
	p := &project{root: root}
	p.rootInfo, _ = os.Stat(root)
	p.gauntlet, _ = os.Stat(filepath.Join(root, Dir))
	for _, d := range findGitDirs(root) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			p.gitDirs = append(p.gitDirs, landmark{path: d, info: fi})
		}
	}
	return p
}

// findGitDirs returns the git directory of the work tree holding root and,
// in a linked worktree, its common directory, as git rev-parse --git-dir
// and --git-common-dir would name them without GIT_DIR set.
func findGitDirs(root string) []string {
	d, ok := gitdir.Find(root)
	switch {
	case !ok:
		return nil
	case d.CommonDir != d.GitDir:
		return []string{d.GitDir, d.CommonDir}
	}
	return []string{d.GitDir}
}

// place is where a configured path really is.
type place struct {
	shown    string // the path as configured, for messages
	existing string // its deepest existing ancestor, links resolved
	tail     string // the components below existing (which do not exist)
	resolved string // existing + tail
}

// locate resolves abs (configured as shown).
func locate(abs, shown string) (place, error) {
	existing, tail, err := resolveExisting(abs)
	if err != nil {
		return place{}, err
	}
	return place{shown: fserr.Quote(shown), existing: existing, tail: tail, resolved: filepath.Join(existing, tail)}, nil
}

// resolveExisting resolves every symbolic link of the absolute path p, also
// when its end does not exist yet: it returns the deepest existing ancestor
// with its links resolved (a dangling link through its target) and the
// components below it.
func resolveExisting(p string) (existing, tail string, err error) {
	resolved := string(filepath.Separator)
	rest := strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return resolved, filepath.Join(append([]string{c}, rest...)...), nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return "", "", &throughFileError{path: resolved}
		}
		if err != nil {
			return "", "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", "", fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", "", err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(strings.Split(filepath.ToSlash(target), "/"), rest...)
	}
	return resolved, "", nil
}

// throughFileError is resolveExisting's error for a path that goes on
// below something that is not a directory.
type throughFileError struct {
	path string // the non-directory, links resolved
}

func (e *throughFileError) Error() string { return e.path + ": not a directory" }

// locateProblem renders an error of locate as a problem message.
func (p *project) locateProblem(err error) string {
	var tf *throughFileError
	if errors.As(err, &tf) {
		shown := tf.path
		if rel, rerr := filepath.Rel(p.root, tf.path); rerr == nil && !strings.HasPrefix(rel, "..") {
			shown = rel
		}
		kind := "not a directory"
		if fi, serr := os.Stat(tf.path); serr == nil {
			kind = fsread.Kind(fi.Mode())
		}
		return fmt.Sprintf(msgThroughFile, fserr.Quote(shown), kind)
	}
	return fmt.Sprintf(msgUnresolvable, fserr.Pathless(err))
}

// where tells what a resolved existing directory lies in.
type where struct {
	inRoot, isRoot bool
	inGauntlet     bool
	gitDir         string // the git directory it lies in, or ""
	gitComponent   bool   // a component below the root is named .git
}

// whereIs compares pl.existing and its ancestors with the landmarks
// (os.SameFile: bind mounts and case-insensitive names included).
func (p *project) whereIs(pl place) where {
	var w where
	var below []string // components from existing up to the root
	for dir := pl.existing; ; {
		fi, err := os.Stat(dir)
		if err == nil {
			for _, g := range p.gitDirs {
				if w.gitDir == "" && os.SameFile(fi, g.info) {
					w.gitDir = g.path
				}
			}
			if p.gauntlet != nil && os.SameFile(fi, p.gauntlet) {
				w.inGauntlet = true
			}
			if p.rootInfo != nil && os.SameFile(fi, p.rootInfo) {
				w.inRoot, w.isRoot = true, dir == pl.existing
				break
			}
		}
		below = append(below, filepath.Base(dir))
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for _, c := range append(below, strings.Split(filepath.ToSlash(pl.tail), "/")...) {
		w.gitComponent = w.gitComponent || strings.EqualFold(c, gitdir.Entry)
	}
	// A gitDir above the root (the root below the git top level) says
	// nothing: only what the walk met below the root counts.
	if !w.inRoot {
		w.gitDir, w.inGauntlet, w.gitComponent = "", false, false
	}
	return w
}

// insideProblem applies the rules every configured path obeys: inside the
// project root, not in a git directory; allowRoot and allowGauntlet lift
// the rules of the root and of .gauntlet/.
func (p *project) insideProblem(pl place, allowRoot, allowGauntlet bool) string {
	w := p.whereIs(pl)
	switch {
	case !w.inRoot:
		return fmt.Sprintf(msgOutside, pl.shown, fserr.Quote(pl.resolved))
	case w.gitDir != "":
		return fmt.Sprintf(msgInGitDir, fserr.Quote(w.gitDir), pl.shown)
	case w.gitComponent:
		return fmt.Sprintf(msgGitComponent, pl.shown)
	case w.isRoot && pl.tail == "" && !allowRoot:
		return fmt.Sprintf(msgIsRoot, pl.shown)
	case w.inGauntlet && !allowGauntlet:
		return fmt.Sprintf(msgInGauntlet, pl.shown)
	}
	return ""
}

// checkDir checks a configured directory (log_dir, working_directory):
// the common rules, and, when it exists, that it is a directory.
func (p *project) checkDir(rel string, allowRoot bool) (place, string) {
	pl, err := locate(filepath.Join(p.root, rel), rel)
	if err != nil {
		return place{}, p.locateProblem(err)
	}
	if msg := p.insideProblem(pl, allowRoot, false); msg != "" {
		return pl, msg
	}
	if pl.tail == "" {
		if fi, err := os.Stat(pl.existing); err == nil && !fi.IsDir() {
			return pl, fmt.Sprintf(msgNotDir, pl.shown, fsread.Kind(fi.Mode()))
		}
	}
	return pl, ""
}

// checkLogDir checks log_dir beyond checkDir: the directory whose files
// clean moves holds no git work tree and no git directory.
func (p *project) checkLogDir(rel string) (place, string) {
	pl, msg := p.checkDir(rel, false)
	if msg != "" || pl.tail != "" {
		return pl, msg
	}
	if _, err := os.Lstat(filepath.Join(pl.existing, gitdir.Entry)); err == nil {
		return pl, fmt.Sprintf(msgWorkTree, pl.shown)
	}
	logInfo, err := os.Stat(pl.existing)
	if err != nil {
		return pl, ""
	}
	for _, g := range p.gitDirs {
		for dir := g.path; ; dir = filepath.Dir(dir) {
			if fi, err := os.Stat(dir); err == nil && os.SameFile(fi, logInfo) {
				return pl, fmt.Sprintf(msgHoldsGitDir, fserr.Quote(g.path))
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return pl, ""
}

// checkFile checks a configured file (fix_instructions, under .gauntlet/):
// inside the project, not in a git directory, once links are resolved.
func (p *project) checkFile(abs, shown string) string {
	pl, err := locate(abs, shown)
	if err != nil {
		return p.locateProblem(err)
	}
	return p.insideProblem(pl, false, true)
}
