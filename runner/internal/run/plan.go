package run

import (
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// planned are the jobs of a run and the names of their files.
type planned struct {
	// jobs are the jobs of the run's kinds (and -g gate, and
	// --working-directory) for the changed files, in run order.
	jobs []gate.Job
	// names names the gate files (entry.JobNames): every job the
	// configuration can give, and the run's.
	names *logdir.JobNames
}

// plan makes the jobs of the run's kinds (and -g gate) for the changed
// files, without those whose directory is gone, each check with its
// changed files (entry.Narrow); the notes and warnings of entry point
// expansion and the checks that do not apply are printed. No job stops the
// run (stopNoGates).
func plan(s *services, p *project, b *begun, ch *changes) (*planned, error) {
	expanded, notes := entry.Expand(p.root, p.cfg.EntryPoints, ch.files)
	jobs, warnings := entry.Jobs(p.cfg, expanded, entry.Filter{
		Checks: p.opts.Kinds != KindsReviews, Reviews: p.opts.Kinds != KindsChecks, CI: p.eff.CI,
		Gate: p.opts.Gate, WorkingDir: p.opts.WorkingDir,
	})
	applicable := jobs
	jobs, missing := entry.Present(p.root, jobs, ch.files)
	present := jobs
	for _, w := range append(append(notes, missing...), warnings...) {
		s.cons.Printf("%s", w)
	}
	jobs, skipped := entry.Narrow(p.root, jobs, expanded, ch.files, b.exists.of(ch.files))
	for _, n := range skipped {
		s.cons.Printf("%s", n.Line())
	}
	if len(jobs) == 0 {
		return nil, noGates(applicable, present)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return &planned{jobs: jobs, names: entry.JobNames(p.cfg, ids...)}, nil
}

// noGates is the stop of a run left without jobs: no applicable gates;
// when some of the applicable jobs were not present (their working
// directory is gone), its message names them: what was not verified.
func noGates(applicable, present []gate.Job) error {
	var ids []string
	for _, j := range applicable {
		if !slices.ContainsFunc(present, func(k gate.Job) bool { return k.ID == j.ID }) {
			ids = append(ids, console.Text(j.ID))
		}
	}
	if len(ids) == 0 {
		return stopNoGates
	}
	return &stop{status: outcome.StatusNoApplicableGates, line: LineNoApplicableGates,
		message: "the checks whose working directory no longer exists (" + strings.Join(ids, ", ") + ")"}
}
