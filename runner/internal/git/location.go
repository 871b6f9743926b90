package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Location is where a project sits in its repository: what a store under
// the git common directory is keyed by.
type Location struct {
	// CommonDir is the absolute git common directory (shared by every
	// worktree).
	CommonDir string
	// Prefix is the project root relative to the work tree's top level,
	// "" at the top level, else ending in "/".
	Prefix string
	// Branch is the checked-out branch, "HEAD" when detached. A branch with
	// no commit yet has its name.
	Branch string
}

// Locate answers Location for the project at root with one git process
// (`rev-parse --git-dir --git-common-dir --show-prefix`), reading the
// branch from the work tree's HEAD file.
func Locate(ctx context.Context, root string) (Location, error) {
	if loc, ok := locatePlain(root); ok {
		return loc, nil
	}
	out, err := output(ctx, root, "rev-parse", "--git-dir", "--git-common-dir", "--show-prefix")
	if err != nil {
		return Location{}, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 {
		return Location{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(root, p)
	}
	loc := Location{CommonDir: abs(lines[1]), Branch: "HEAD"}
	if len(lines) > 2 {
		loc.Prefix = lines[2]
	}
	if loc.Branch, err = headBranch(abs(lines[0])); err != nil {
		return Location{}, err
	}
	return loc, nil
}

// locatePlain answers Locate without a git process at the top level of a
// plain repository: root/.git a directory of its own (not a linked
// worktree's), no GIT_* variable moving it.
func locatePlain(root string) (Location, bool) {
	if !plainEnv() || !filepath.IsAbs(root) {
		return Location{}, false
	}
	dir := filepath.Join(root, ".git")
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return Location{}, false
	}
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		return Location{}, false
	}
	branch, err := headBranch(dir)
	if err != nil {
		return Location{}, false
	}
	return Location{CommonDir: filepath.Clean(dir), Branch: branch}, true
}

// maxHEAD bounds the read of a HEAD file (a ref name, or an object id).
const maxHEAD = 64 << 10

// maxGitFile bounds a read of one of git's own files in the process (the
// index, packed-refs, a configuration file): each is read through fsread,
// so that one that is no regular file (a FIFO git would wait on) is an
// error, never a hang.
const maxGitFile = 1 << 30

// headBranch reads the branch HEAD names in gitDir, "HEAD" when detached.
// A HEAD that is no regular file (a FIFO would block the read) or too
// large is an error: the caller asks git, under its deadline.
func headBranch(gitDir string) (string, error) {
	head, err := fsread.File(filepath.Join(gitDir, "HEAD"), maxHEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		return strings.TrimPrefix(ref, "refs/heads/"), nil
	}
	return "HEAD", nil
}

// BranchOf is the branch HEAD names in the git directory gitDir, "HEAD"
// when detached: Location.Branch, read without a git process.
func BranchOf(gitDir string) (string, error) { return headBranch(gitDir) }
