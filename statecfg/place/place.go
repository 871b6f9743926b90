// Package place tells where a project sits in its repository: the git
// common directory every worktree shares (where the gauntlet keeps the
// records that must outlive the work tree and its logs), the work tree's
// own git directory, its top level, and the project's path below it. The
// records are keyed by these: one per project place, and, for what belongs
// to one work tree, one per worktree.
package place

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Place is where a project sits in its repository.
type Place struct {
	// CommonDir is the absolute git common directory, shared by every
	// worktree of the repository; GitDir the work tree's own git directory
	// (CommonDir itself in the main work tree); TopLevel the absolute top
	// level of the project's work tree.
	CommonDir string
	GitDir    string
	TopLevel  string
	// Prefix is the project root relative to TopLevel, slash-separated,
	// "" at the top level, else ending in "/" (as `git rev-parse
	// --show-prefix` says it).
	Prefix string
}

// Project is the key of the project's records: the prefix without its
// final slash, "." at the top level (as every record under the git common
// directory names its project).
func (p Place) Project() string {
	if p.Prefix == "" {
		return "."
	}
	return strings.TrimSuffix(p.Prefix, "/")
}

// Root is the project root.
func (p Place) Root() string {
	return filepath.Join(p.TopLevel, filepath.FromSlash(p.Prefix))
}

// Worktree is the key of the work tree among the repository's worktrees:
// "." for the main one, else its git directory relative to the common
// directory ("worktrees/<name>", which git keeps when the worktree moves).
func (p Place) Worktree() string {
	if p.GitDir == "" || p.GitDir == p.CommonDir {
		return "."
	}
	if rel, err := filepath.Rel(p.CommonDir, p.GitDir); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p.GitDir)
}

// ErrNoRepository is matched (errors.Is) by Locate's error for a directory
// in no git work tree: such a project has no place for records.
var ErrNoRepository = errors.New("not in a git work tree")

// gitLocationVars move the repository away from where its files say it
// is; when one is set, Locate asks git.
var gitLocationVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"}

// Locate returns the place of the project at root. It runs no process in
// a repository git finds by its files (gitdir.Find); with GIT_DIR,
// GIT_WORK_TREE or GIT_COMMON_DIR set it asks git, under ctx.
func Locate(ctx context.Context, root string) (Place, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Place{}, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	var d gitdir.Dirs
	if MovedByEnv() {
		d, err = locateWithGit(ctx, abs)
		if err != nil {
			return Place{}, err
		}
	} else {
		var ok bool
		if d, ok = gitdir.Find(abs); !ok {
			return Place{}, fmt.Errorf("locate the repository of %s: %w", abs, ErrNoRepository)
		}
	}
	top := d.TopLevel
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Place{}, fmt.Errorf("locate the repository of %s: it is outside the work tree %s: %w", abs, top, ErrNoRepository)
	}
	p := Place{CommonDir: filepath.Clean(d.CommonDir), GitDir: filepath.Clean(d.GitDir), TopLevel: top}
	if rel != "." {
		p.Prefix = filepath.ToSlash(rel) + "/"
	}
	return p, nil
}

// MovedByEnv reports whether a git variable (GIT_DIR, GIT_WORK_TREE,
// GIT_COMMON_DIR) moves the repository away from where its files say.
func MovedByEnv() bool {
	for _, k := range gitLocationVars {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// locateWithGit asks git for the places of the work tree at dir.
func locateWithGit(ctx context.Context, dir string) (gitdir.Dirs, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	args := append(append([]string{"-C", dir}, gitcmd.SafeArgs...), "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), gitcmd.SafeEnv...)
	procgroup.Set(cmd)
	cmd.WaitDelay = gitWaitDelay
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := gitcmd.Exec(ctx, cmd); err != nil {
		return gitdir.Dirs{}, fmt.Errorf("locate the repository of %s: git rev-parse: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" {
		return gitdir.Dirs{}, fmt.Errorf("locate the repository of %s: %w", dir, ErrNoRepository)
	}
	return gitdir.Dirs{TopLevel: filepath.FromSlash(lines[0]), GitDir: filepath.FromSlash(lines[1]), CommonDir: filepath.FromSlash(lines[2])}, nil
}

// Bounds of locateWithGit's git process.
const (
	gitTimeout   = 30 * time.Second
	gitWaitDelay = 2 * time.Second
)

// NearestTop returns the nearest of root and its parents that holds a .git
// entry (a directory, or the file of a linked worktree or submodule): the
// top level of root's work tree as a plain repository has it, with no git
// process; root itself when none does.
func NearestTop(root string) string {
	for dir := root; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
}
