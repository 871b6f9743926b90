package runner

import (
	"context"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"
)

// MarkStart records, for the project at root (init does, once its
// configuration is written), HEAD as the last point the gates were seen
// to pass on the current branch, unless one is recorded already. When the
// base branch is the branch the agent works on (a repository without a
// remote), work the agent commits there is checked from that point on,
// rather than looking like the base's own. It returns the branch and the
// point recorded (git's empty tree before the first commit), "" when none
// could be (a detached HEAD, no repository).
func MarkStart(ctx context.Context, root string) (branch, point string, err error) {
	return run.MarkStart(ctx, root, time.Now())
}

// EmptyTree is git's empty tree: the point MarkStart records before the
// first commit.
const EmptyTree = git.EmptyTree
