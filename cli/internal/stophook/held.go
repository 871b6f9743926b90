package stophook

import (
	"context"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// hold holds the stop's own directories open until it has answered
// (owned.Hold): the store in the git common directory of the project at
// root (logDir ""), or the log directory logDir when it is inside root.
// The store is made when missing; the log directory is not (a stop that
// runs nothing makes none). Every record the stop writes there, before,
// during and after its run, goes to the directory opened, so that one
// replaced by a link meanwhile (by a gate's command, by any process)
// leads no write elsewhere; the answer says so (tell). A directory that
// cannot be held (a link there already) is left to the checks of its
// writers, which refuse it.
func (h *hook) hold(ctx context.Context, root, logDir string) {
	if root == "" {
		return
	}
	base, dir := root, logDir
	if logDir == "" {
		p, err := place.Locate(ctx, root)
		if err != nil {
			return
		}
		base, dir = p.CommonDir, filepath.Join(p.CommonDir, store.Dir)
		// Made first, as the stop's records would make it: a stop before
		// any other holds it too.
		if owned.MkdirAll(base, store.Dir, 0o755) != nil {
			return
		}
	}
	if release, err := owned.Hold(base, dir); err == nil {
		h.held = append(h.held, release)
	}
}
