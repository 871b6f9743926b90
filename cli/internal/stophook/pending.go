package stophook

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// pendingView is what waits to be verified in a project: the gates whose
// latest verdict failed, and the failures archived without a verification
// since.
type pendingView struct {
	// Gates are the job ids whose latest result failed, sorted.
	Gates []string
	// Archived are the other job ids whose failures were moved out of the
	// way (agent-gauntlet clean, or the automatic clean after a branch
	// change or a merged commit) with no passing run since; ArchivedAt is
	// when.
	Archived   []string
	ArchivedAt time.Time
}

// empty reports that nothing waits to be verified.
func (v pendingView) empty() bool { return len(v.Gates)+len(v.Archived) == 0 }

// all is every gate that waits, pending first.
func (v pendingView) all() []string { return append(slices.Clone(v.Gates), v.Archived...) }

// PendingGates are the gates that wait to be verified in the project of
// cfg, as the stop hook's answers list them ("pending"): for status.
func PendingGates(cfg *config.Config, getenv func(string) string, now time.Time) []string {
	return pendingFailures(cfg, getenv, now).all()
}

// pendingFailures is the one way the stop hook learns what waits to be
// verified in the project of cfg (the configuration in force), read
// through runner.Status: the failures of the log directory, and those an
// archive left in its previous/ directory without a passing run since (a
// pass archives its own logs there, replacing them). It runs no git
// command.
func pendingFailures(cfg *config.Config, getenv func(string) string, now time.Time) pendingView {
	v := pendingView{Gates: failing(runner.Status(cfg, getenv, now))}
	prev := *cfg
	prev.LogDir = filepath.Join(cfg.LogDirPath(), logdir.PreviousDir)
	fi, err := os.Lstat(prev.LogDir)
	if err != nil || !fi.IsDir() {
		return v
	}
	for _, g := range failing(runner.Status(&prev, getenv, now)) {
		if !slices.Contains(v.Gates, g) {
			v.Archived = append(v.Archived, g)
		}
	}
	if len(v.Archived) > 0 {
		v.ArchivedAt = fi.ModTime()
	}
	return v
}

// failing is the sorted job ids of st's failed checks and reviews.
func failing(st runner.ProjectStatus) []string {
	out := append(slices.Clone(st.FailedChecks), st.FailedReviews...)
	slices.Sort(out)
	return slices.Compact(out)
}
