package runner

import (
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// loadPending reads what earlier runs left to verify in logDir, its files
// named by jn: the checks whose latest log failed and the review slots
// whose latest verdict failed, of gate gateName only when it is not empty.
// The warnings name unreadable files and unknown violation statuses.
func loadPending(logDir string, jn *logdir.JobNames, gateName string) (*gate.Pending, []string, error) {
	names, err := logdir.Scan(logDir)
	if err != nil {
		return &gate.Pending{}, nil, err
	}
	keep := func(job string) bool { return gateName == "" || gate.IsOfGate(job, gateName) }
	slots, warnings := review.PendingSlots(logDir, names, jn, keep)
	return &gate.Pending{Checks: check.Failing(logDir, names, jn, keep), Slots: slots}, warnings, nil
}

// JobNames names the log files of the jobs of the project cfg (see
// logdir.JobNames): every job its configuration can give for the tree as
// it is, locally or in CI (`dir/*` wildcards expanded to the existing
// sub-directories), whatever a run's flags select, plus extra job ids
// (those of a run, which may name a directory that is gone). Every place
// that writes gate files or matches them to jobs uses it.
func JobNames(cfg *config.Config, extra ...string) *logdir.JobNames {
	ids := append([]string(nil), extra...)
	for _, j := range configuredJobs(cfg) {
		ids = append(ids, j.ID)
	}
	return logdir.NewJobNames(ids...)
}

// configuredJobs are every job the configuration cfg can give for the tree
// as it is, locally or in CI (`dir/*` wildcards expanded to the existing
// sub-directories), whatever a run's flags select; a job of both places is
// listed twice.
func configuredJobs(cfg *config.Config) []gate.Job {
	eps := entry.ExpandAll(cfg.Root, cfg.EntryPoints)
	var all []gate.Job
	for _, ci := range []bool{false, true} {
		jobs, _ := entry.Jobs(cfg, eps, entry.Filter{Checks: true, Reviews: true, CI: ci})
		all = append(all, jobs...)
	}
	return all
}
