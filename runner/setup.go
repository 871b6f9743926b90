package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// setup loads the project, opens the debug log, checks that git is there
// and the gate filters (checkFilters). It returns a non-nil result
// when the run cannot go on; a configuration or command-line error is
// returned in ConfigErr, unprinted.
func (e *execution) setup(ctx context.Context) *RunResult {
	p := e.opts.Project
	if p == nil {
		dir := e.opts.Dir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				r := e.fail(StatusError, fmt.Errorf("get working directory: %w", err))
				return &r
			}
			dir = wd
		}
		var err error
		if p, err = config.OpenProject(dir); err != nil {
			return configResult(err)
		}
	}
	cfg, err := p.All(ctx)
	if err != nil {
		return configResult(err)
	}
	config.WriteWarnings(e.cons, cfg.Warnings)
	e.root, e.cfg = cfg.Root, cfg
	e.logDir = cfg.LogDirPath()
	e.logRel = scope.InsideRel(e.root, e.logDir)
	eff := e.opts.Settings
	if eff == nil {
		r := config.Resolve(cfg, e.getenv)
		eff = &r
	}
	for _, w := range eff.Warnings {
		e.cons.Printf(lineWarning, w)
	}
	e.debug = debuglog.Open(e.logDir, eff.DebugLog, e.now)
	e.debug.Event(debuglog.EventCommand, e.commandLine())

	if err := git.Available(); err != nil {
		r := e.fail(StatusInfrastructureError, err)
		return &r
	}
	e.ci, e.ciHead = eff.CI, eff.Head
	e.base = eff.Base(e.opts.BaseBranch)
	e.snap = lazy(func() (runSnapshot, error) { return e.takeSnapshot(ctx) })
	e.loc = lazy(func() (git.Location, error) { return git.Locate(ctx, e.root) })
	if err := e.checkFilters(); err != nil {
		return &RunResult{Status: StatusError, ErrorMessage: err.Error(), ConfigErr: err}
	}
	// -c and -b name revisions: one that names nothing is a usage error,
	// found before anything is locked, archived or written.
	if err := scope.CheckRevisions(ctx, e.root, e.opts.Commit, e.opts.BaseBranch); err != nil {
		if r := usageResult(err); r != nil {
			return r
		}
		r := e.fail(StatusError, err)
		return &r
	}
	return nil
}

// configResult is the result of a run whose project did not load (err, as
// config.OpenProject and config.Project.All return it): no_config without
// a project, else error; the error is returned in ConfigErr, unprinted.
func configResult(err error) *RunResult {
	status := StatusError
	if errors.Is(err, config.ErrNotFound) {
		status = StatusNoConfig
	}
	return &RunResult{Status: status, ErrorMessage: err.Error(), ConfigErr: err}
}

// checkFilters checks -g (a gate of the run's kinds),
// --working-directory (a directory inside the project, named relative to
// its root) and the report files (checkReports).
func (e *execution) checkFilters() error {
	if err := e.checkReports(); err != nil {
		return err
	}
	if e.opts.Gate != "" && !e.gateExists(e.opts.Gate) {
		return fmt.Errorf("no %s named %q in %s", e.kindsNoun(), e.opts.Gate, config.Dir)
	}
	wd := e.opts.WorkingDir
	if wd == "" {
		return nil
	}
	clean := filepath.Clean(wd)
	if filepath.IsAbs(wd) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--working-directory %q: must be a directory relative to the project root %s", wd, e.root)
	}
	if fi, err := os.Stat(filepath.Join(e.root, clean)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--working-directory %q: no such directory in the project root %s", wd, e.root)
	}
	return nil
}

// commandLine renders the COMMAND event: the command and its flags.
func (e *execution) commandLine() string {
	cmd := e.opts.Command
	if cmd == "" {
		cmd = "run"
	}
	parts := []string{cmd}
	if e.opts.BaseBranch != "" {
		parts = append(parts, "-b", e.opts.BaseBranch)
	}
	if e.opts.Gate != "" {
		parts = append(parts, "-g", e.opts.Gate)
	}
	if e.opts.WorkingDir != "" {
		parts = append(parts, "--working-directory", e.opts.WorkingDir)
	}
	if e.opts.Commit != "" {
		parts = append(parts, "-c", e.opts.Commit)
	}
	if e.opts.Uncommitted {
		parts = append(parts, "-u")
	}
	return strings.Join(parts, " ")
}

// kindsNoun names the gates of the run's kinds, for messages.
func (e *execution) kindsNoun() string {
	switch e.opts.Kinds {
	case KindsChecks:
		return "check gate"
	case KindsReviews:
		return "review gate"
	}
	return "check or review gate"
}

// gateExists reports whether a gate of the run's kinds is called name.
func (e *execution) gateExists(name string) bool {
	_, isCheck := e.cfg.Checks[name]
	_, isReview := e.cfg.Reviews[name]
	return (isCheck && e.opts.Kinds != KindsReviews) || (isReview && e.opts.Kinds != KindsChecks)
}

// jobIDs are the ids of jobs.
func jobIDs(jobs []gate.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// jobs are the jobs of the run's kinds (and -g gate) for the changed
// files, without those whose directory is gone, each check with its
// changed files (scopeJobs); the notes and warnings of entry point
// expansion and the checks that do not apply are printed.
func (e *execution) jobs(files []string) []gate.Job {
	expanded, notes := entry.Expand(e.root, e.cfg.EntryPoints, files)
	jobs, warnings := entry.Jobs(e.cfg, expanded, entry.Filter{
		Checks: e.opts.Kinds != KindsReviews, Reviews: e.opts.Kinds != KindsChecks, CI: e.ci,
		Gate: e.opts.Gate, WorkingDir: e.opts.WorkingDir,
	})
	jobs, missing := entry.Present(e.root, jobs)
	for _, w := range append(append(notes, missing...), warnings...) {
		e.cons.Printf("%s", w)
	}
	jobs, skipped := entry.Narrow(e.root, jobs, expanded, files, e.fileExists(files))
	for _, s := range skipped {
		e.cons.Printf("%s", s.Line())
	}
	return jobs
}
