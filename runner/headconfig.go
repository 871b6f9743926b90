package runner

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// BrokenByChange reports whether the configuration of the project at root,
// which does not load from the work tree, was broken by the change: the
// .gauntlet/ directory HEAD holds loads, or HEAD names no commit yet: then
// every file of the work tree, .gauntlet/ included, is the change. It
// reads HEAD's files from git's objects into a temporary directory, never
// touching the work tree, the index or a ref. False when commits exist but
// HEAD holds no configuration (a new one, not committed yet), when HEAD's
// does not load either (the user's own problem, not the change's), when
// the work tree's .gauntlet/ holds exactly HEAD's files (what fails is a
// path around it, not the change to it), or when git cannot tell.
func BrokenByChange(ctx context.Context, root string) bool {
	if unbornHead(ctx, root) {
		return true
	}
	tmp, err := os.MkdirTemp("", "agent-gauntlet-head-config-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	found, err := git.ExtractDir(ctx, root, "HEAD", config.Dir, tmp)
	if err != nil || !found {
		return false
	}
	if fi, err := os.Stat(filepath.Join(tmp, config.Dir, config.ProjectFile)); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if sameFiles(filepath.Join(tmp, config.Dir), filepath.Join(root, config.Dir)) {
		// The change left .gauntlet/ as committed: what fails is around
		// it (a path the configuration names), not something it broke.
		return false
	}
	_, err = config.LoadProject(ctx, tmp, config.ReadAll)
	return err == nil
}

// sameFiles reports whether the directories a and b hold the same regular
// files (names and contents), ignoring everything else; false when either
// cannot be read.
func sameFiles(a, b string) bool {
	fa, okA := regularFiles(a)
	fb, okB := regularFiles(b)
	return okA && okB && maps.Equal(fa, fb)
}

// regularFiles maps the slash path of every regular file below dir to its
// content; false when dir cannot be read whole.
func regularFiles(dir string) (map[string]string, bool) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return files, err == nil
}

// RepositoryProblem is what keeps git from working in the project at root,
// in one line naming the fix (no repository, or one git refuses: "dubious
// ownership"); nil when git works there, or fails for another reason.
func RepositoryProblem(ctx context.Context, root string) error {
	if _, err := git.Branch(ctx, root); errors.Is(err, git.ErrRepository) {
		return err
	}
	return nil
}

// unbornHead reports whether HEAD of the repository at root names no
// commit yet (trust.HeadCommit's empty start); false when git cannot tell.
func unbornHead(ctx context.Context, root string) bool {
	p, err := place.Locate(ctx, root)
	if err != nil {
		return false
	}
	commit, err := trust.HeadCommit(ctx, p)
	return err == nil && commit == trust.EmptyStart
}
