package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
)

// Place is where a project sits in its repository: what its trusted
// configuration is kept under and keyed by.
type Place struct {
	// CommonDir is the absolute git common directory, shared by every
	// worktree of the repository; TopLevel the absolute top level of the
	// project's work tree.
	CommonDir string
	TopLevel  string
	// Prefix is the project root relative to TopLevel, slash-separated,
	// "" at the top level, else ending in "/" (as `git rev-parse
	// --show-prefix` says it).
	Prefix string
}

// Project is the key of the place's record: the prefix without its final
// slash, "." at the top level (as every record under the git common
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

// ErrNoRepository is matched (errors.Is) by Locate's error for a directory
// in no git work tree: such a project has no place to keep a trusted
// configuration.
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
	var top, common string
	if movedByEnv() {
		top, common, err = locateWithGit(ctx, abs)
		if err != nil {
			return Place{}, err
		}
	} else {
		d, ok := gitdir.Find(abs)
		if !ok {
			return Place{}, fmt.Errorf("locate the repository of %s: %w", abs, ErrNoRepository)
		}
		top, common = d.TopLevel, d.CommonDir
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Place{}, fmt.Errorf("locate the repository of %s: it is outside the work tree %s: %w", abs, top, ErrNoRepository)
	}
	p := Place{CommonDir: filepath.Clean(common), TopLevel: top}
	if rel != "." {
		p.Prefix = filepath.ToSlash(rel) + "/"
	}
	return p, nil
}

// movedByEnv reports whether a git variable moves the repository.
func movedByEnv() bool {
	for _, k := range gitLocationVars {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// locateWithGit asks git for the top level and the common directory of
// the work tree at dir.
func locateWithGit(ctx context.Context, dir string) (top, common string, err error) {
	out, err := runGit(ctx, dir, nil, maxSmallOutput, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return "", "", fmt.Errorf("locate the repository of %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" {
		return "", "", fmt.Errorf("locate the repository of %s: %w", dir, ErrNoRepository)
	}
	return filepath.FromSlash(lines[0]), filepath.FromSlash(lines[1]), nil
}
