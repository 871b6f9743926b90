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
	// offDisk names the gates left out because their entry point, with
	// changes there, is not on the disk (leftOutJobs), and the changed
	// files the index holds off the disk (offDiskFiles), "" for none.
	offDisk string
	// leftOut counts the applicable gates left out of the run (their
	// working directory or their entry point's directory is not on the
	// disk): a run with any is no pass of every gate, and a pending failure
	// of such a gate stays pending.
	leftOut int
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
	filter := entry.Filter{
		Checks: p.opts.Kinds != KindsReviews, Reviews: p.opts.Kinds != KindsChecks, CI: p.eff.CI,
		Gate: p.opts.Gate, WorkingDir: p.opts.WorkingDir,
	}
	jobs, warnings := entry.Jobs(p.cfg, expanded, filter)
	offDisk, gone := leftOutJobs(p, expanded, ch.files, filter)
	applicable := append(append(slices.Clip(jobs), offDisk...), gone...)
	jobs, missing := entry.Present(p.root, jobs, ch.files)
	present := jobs
	for _, w := range append(append(notes, missing...), warnings...) {
		s.cons.Printf("%s", w)
	}
	jobs, skipped := entry.Narrow(p.root, jobs, expanded, ch.files, b.exists.of(ch.files))
	for _, n := range skipped {
		s.cons.Printf("%s", n.Line())
	}
	dirGone := withoutDir(applicable, present, offDisk, gone)
	if len(jobs) == 0 {
		return nil, noGates(dirGone, offDisk, gone)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	off := leftOutText(dirGone, offDisk, gone)
	if t := offDiskFilesText(p, ch.files); t != "" {
		off = strings.TrimPrefix(off+"; "+t, "; ")
	}
	leftOut := len(dirGone) + len(offDisk) + len(gone)
	return &planned{jobs: jobs, names: entry.JobNames(p.cfg, ids...), offDisk: off, leftOut: leftOut}, nil
}

// withoutDir are the applicable jobs that are neither present nor left
// out with their entry point (offDisk, gone): those whose working
// directory is gone (entry.Present).
func withoutDir(applicable, present, offDisk, gone []gate.Job) []gate.Job {
	var out []gate.Job
	for _, j := range applicable {
		if !slices.ContainsFunc(present, func(k gate.Job) bool { return k.ID == j.ID }) &&
			!slices.ContainsFunc(offDisk, func(k gate.Job) bool { return k.ID == j.ID }) &&
			!slices.ContainsFunc(gone, func(k gate.Job) bool { return k.ID == j.ID }) {
			out = append(out, j)
		}
	}
	return out
}

// offDiskFiles are the changed files the index holds flagged
// skip-worktree while the disk does not (a sparse checkout's, or flagged by
// hand and removed; a commit carries them): a gate that reads the work tree cannot see
// them, whether or not their entry point's directory is on the disk, so
// every answer names them as not verified.
func offDiskFiles(p *project, files []string) []string {
	snap := p.snap.listing()
	if snap == nil || len(snap.Hidden) == 0 {
		return nil
	}
	hidden := snap.HiddenInRoot()
	var off []string
	for _, f := range files {
		if slices.Contains(hidden, f) {
			off = append(off, f)
		}
	}
	return off
}

// offDiskFilesText names offDiskFiles for the person, "" for none.
func offDiskFilesText(p *project, files []string) string {
	off := offDiskFiles(p, files)
	if len(off) == 0 {
		return ""
	}
	names := make([]string, len(off))
	for i, f := range off {
		names[i] = console.Text(f)
	}
	return "the changed files git keeps off the disk (skip-worktree, as a sparse checkout does), which no check reads (" + strings.Join(names, ", ") + ")"
}

// leftOutJobs are the jobs of the entry points that apply to the changed
// files but whose directory is not on the disk (Expand leaves them out):
// offDisk those with a changed file the index holds off the disk
// (skip-worktree: the change is not a deletion, and no gate can run where
// it is), gone the others (the change moved or deleted the directory, its
// deletions unjudged). Every answer names both as not verified, and
// neither blocks: nothing is there to run a gate in.
func leftOutJobs(p *project, expanded []entry.Expanded, files []string, filter entry.Filter) (offDisk, gone []gate.Job) {
	all, _ := entry.Expand("", p.cfg.EntryPoints, files)
	var hidden []string
	if snap := p.snap.listing(); snap != nil && len(snap.Hidden) > 0 {
		hidden = snap.HiddenInRoot()
	}
	var off, left []entry.Expanded
	for _, e := range all {
		if slices.ContainsFunc(expanded, func(x entry.Expanded) bool { return x.Path == e.Path }) {
			continue
		}
		if len(hidden) > 0 && slices.ContainsFunc(files, func(f string) bool {
			return (e.Dir == entry.Root || f == e.Dir || strings.HasPrefix(f, e.Dir+"/")) && slices.Contains(hidden, f)
		}) {
			off = append(off, e)
		} else {
			left = append(left, e)
		}
	}
	if len(off) > 0 {
		offDisk, _ = entry.Jobs(p.cfg, off, filter)
	}
	if len(left) > 0 {
		gone, _ = entry.Jobs(p.cfg, left, filter)
	}
	return offDisk, gone
}

// leftOutText names the applicable jobs a run left out for the person,
// "" for none: dirGone those whose working directory is gone (withoutDir),
// offDisk and gone those of leftOutJobs.
func leftOutText(dirGone, offDisk, gone []gate.Job) string {
	var parts []string
	if len(dirGone) > 0 {
		parts = append(parts, "the checks whose working directory no longer exists ("+jobIDs(dirGone)+")")
	}
	if len(offDisk) > 0 {
		parts = append(parts, "the gates whose entry point a sparse checkout took off the disk, with changes there ("+jobIDs(offDisk)+")")
	}
	if len(gone) > 0 {
		parts = append(parts, "the gates of entry points with changes whose directory the change moved or deleted ("+jobIDs(gone)+"): its directory is gone")
	}
	return strings.Join(parts, "; ")
}

// jobIDs lists the ids of jobs for the person.
func jobIDs(jobs []gate.Job) string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = console.Text(j.ID)
	}
	return strings.Join(ids, ", ")
}

// noGates is the stop of a run left without jobs: no applicable gates;
// when some of the applicable jobs were left out (leftOutText), its
// message names them: what was not verified.
func noGates(dirGone, offDisk, gone []gate.Job) error {
	t := leftOutText(dirGone, offDisk, gone)
	if t == "" {
		return stopNoGates
	}
	return &stop{status: outcome.StatusNoApplicableGates, line: LineNoApplicableGates, message: t}
}
