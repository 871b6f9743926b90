package entry

import (
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// JobNames names the log files of the jobs of the project cfg (see
// logdir.JobNames): every job its configuration can give for the tree as
// it is, locally or in CI (`dir/*` wildcards expanded to the existing
// sub-directories), whatever a run's flags select, plus extra job ids
// (those of a run, which may name a directory that is gone). Every place
// that writes gate files or matches them to jobs uses it.
func JobNames(cfg *config.Config, extra ...string) *logdir.JobNames {
	ids := append([]string(nil), extra...)
	for _, j := range Configured(cfg) {
		ids = append(ids, j.ID)
	}
	return logdir.NewJobNames(ids...)
}

// Configured are every job the configuration cfg can give for the tree
// as it is, locally or in CI (`dir/*` wildcards expanded to the existing
// sub-directories), whatever a run's flags select; a job of both places is
// listed twice.
func Configured(cfg *config.Config) []gate.Job {
	eps := ExpandAll(cfg.Root, cfg.EntryPoints)
	var all []gate.Job
	for _, ci := range []bool{false, true} {
		jobs, _ := Jobs(cfg, eps, Filter{Checks: true, Reviews: true, CI: ci})
		all = append(all, jobs...)
	}
	return all
}
