package runner

import (
	"context"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
)

// ResultCache is the result cache of a repository, for `agent-gauntlet
// cache`: its directory (Dir), Clear and Stats.
type ResultCache = cache.Store

// OpenResultCache finds the result cache of the repository holding dir.
func OpenResultCache(ctx context.Context, dir string) (ResultCache, error) {
	return cache.OpenStore(ctx, dir)
}
