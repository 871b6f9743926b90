package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	head, err := os.ReadFile(filepath.Join(abs(lines[0]), "HEAD"))
	if err != nil {
		return Location{}, fmt.Errorf("read HEAD: %w", err)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		loc.Branch = strings.TrimPrefix(ref, "refs/heads/")
	}
	return loc, nil
}
