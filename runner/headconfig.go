package runner

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// BrokenByChange reports whether the configuration of the project at root,
// which does not load from the work tree, was broken by the change: the
// .gauntlet/ directory HEAD holds loads. It reads HEAD's files from git's
// objects into a temporary directory, never touching the work tree, the
// index or a ref. False when HEAD holds no configuration (a new one, not
// committed yet), when HEAD's does not load either (the user's own
// problem, not the change's), or when git cannot tell.
func BrokenByChange(ctx context.Context, root string) bool {
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
	_, err = LoadProject(tmp, LoadAll)
	return err == nil
}
