package run

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// holdOwn holds the run's own directories open for the whole run
// (owned.Hold): the log directory, when it is inside the project, and the
// store in the git common directory. Every later write below them goes to
// the directory opened here, so that one replaced by a link while the
// gates run (by a gate's command, by any process) leads no write outside.
// Each is made first, as the run would (owned.MkdirAll). A log directory
// that is a link or below one (put there before the run) ends the run
// with the refusal: its logs and state would go where the link leads. A
// store that cannot be held is left to the checks of its writers, which
// refuse it.
func holdOwn(p *project) (release func(), err error) {
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	hold := func(base, rel string, by func(base, dir string) (func(), error)) error {
		if err := owned.MkdirAll(base, rel, 0o755); err != nil {
			return err
		}
		r, err := by(base, filepath.Join(base, rel))
		if err == nil {
			releases = append(releases, r)
		}
		return err
	}
	if p.logRel != "" {
		if err := hold(p.root, p.logRel, owned.HoldRemade); err != nil {
			var refused *owned.RefusedError
			if errors.As(err, &refused) {
				return release, fmt.Errorf("log directory: %w", err)
			}
		}
	}
	if loc, err := p.loc.get(); err == nil && loc.CommonDir != "" {
		_ = hold(loc.CommonDir, store.Dir, owned.Hold)
	}
	return release, nil
}

// toldReplaced is res telling which of the gauntlet's own directories
// were replaced while it held them (owned.ReplacedNote): nothing was
// written through what is at their names now. The console says it, and
// that the log directory was removed and made again (owned.RemadeNote),
// which leaves every verdict as it was.
func toldReplaced(s *services, res outcome.RunResult) outcome.RunResult {
	replaced := owned.ReplacedNote()
	for _, note := range []string{replaced, owned.RemadeNote()} {
		if note != "" {
			s.cons.Printf(lineWarning, note)
		}
	}
	res.Unverified = joinNotes(res.Unverified, replaced)
	return res
}
