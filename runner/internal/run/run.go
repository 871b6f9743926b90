package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Execute runs the gauntlet once, in-process, and returns its result; it
// never exits the process. The lock is released on every path; a panic
// becomes StatusError. See stages for the order of the stages.
func Execute(ctx context.Context, opts Options) outcome.RunResult {
	return execute(ctx, opts, realDeps())
}

// deps are the effects of a run that tests replace.
type deps struct {
	// previous is what the run's gates are given to verify
	// (previousFailures).
	previous func(s *services, p *project, b *begun) *gate.Pending
	// baseSource gives the base results of failed checks with baseline:
	// true in the project at root, when the result cache has none (see
	// cache.Results.BaseSource).
	baseSource func(root string) baseline.ClosingSource
}

// realDeps are the real effects.
func realDeps() deps {
	return deps{previous: previousFailures, baseSource: func(root string) baseline.ClosingSource {
		return baseline.NewWorktrees(root)
	}}
}

// services are what every stage may use and none sets: the console, the
// clock, the effects tests replace.
type services struct {
	cons *console.Console
	now  func() time.Time
	deps deps
}

// newServices are the services of a run with opts.
func newServices(opts Options, d deps) *services {
	s := &services{now: opts.Now, deps: d}
	if s.now == nil {
		s.now = time.Now
	}
	var term io.Writer
	if !opts.Silent {
		term = opts.Stderr
	}
	s.cons = console.New(term)
	return s
}

// execute is Execute with the effects of d.
func execute(ctx context.Context, opts Options, d deps) (res outcome.RunResult) {
	r := &runner{s: newServices(opts, d)}
	defer func() {
		if p := recover(); p != nil {
			res = outcome.RunResult{Status: outcome.StatusError, ErrorMessage: fmt.Sprintf("internal error: %v", p)}
			res.Message = outcome.Message(res.Status, res.Detail())
			r.s.cons.Printf(lineError, res.ErrorMessage)
		}
	}()
	defer r.cleanup()
	res = r.stages(ctx, opts)
	res.Message = outcome.Message(res.Status, res.Detail())
	if r.p != nil {
		iterations := 0
		if r.b != nil {
			iterations = r.b.runNumber
		}
		r.p.debug.Event(debuglog.EventRunEnd, fmt.Sprintf("status=%s fixed=%d skipped=%d failed=%d iterations=%d",
			res.Status, res.Fixed, res.Skipped, res.GatesFailed, iterations))
	}
	return res
}

// runner is one Execute: its services and, for cleanup alone, the two
// stage values that hold what must be released however the run ends (the
// project's git questions, snapshot and baselines; the lock and the
// changes being listed).
type runner struct {
	s *services
	p *project
	b *begun
	// release lets go of the directories the run holds open (holdOwn),
	// last of all.
	release func()
}

// stages runs a run's stages in order, each handed the values the stages
// before it made: open the project, begin (the lock, the previous state,
// auto-clean, the episode), detect the changes, plan the jobs, prepare
// them (the console log, previous failures, skips, cache keys, the gates'
// change scope), run the gates and finish (the status, the state, the
// summary, archiving). An error, or a stop such as "no changes", ends the
// run through ended, the one place errors become statuses.
func (r *runner) stages(ctx context.Context, opts Options) (res outcome.RunResult) {
	var d description
	p, err := open(ctx, r.s, opts)
	if p != nil {
		r.p, d.root, d.base = p, p.root, p.base
	}
	if err != nil {
		return d.of(r.s.ended(err))
	}
	r.release, err = holdOwn(p)
	defer func() { res = toldReplaced(r.s, res) }()
	if err != nil {
		return d.of(r.s.ended(err))
	}
	b, err := begin(ctx, r.s, p)
	r.b = b
	if p != nil && err == nil {
		// The gates' process groups are recorded while they run, for the
		// next run to reap should this one be killed outright; the
		// directory goes when it is empty again.
		// A scratch directory that cannot be made leaves the groups
		// unrecorded and the gates' lists in the system's temporary
		// directory.
		// It is held open while they run (owned.Hold, as holdOwn holds
		// the log directory): what the run writes in it goes there even
		// when something else takes its name.
		if scratch, err := procgroup.OpenScratch(p.logDir); err == nil {
			ctx = procgroup.WithRegistry(ctx, scratch)
			defer procgroup.CloseScratch(scratch)
			if release, err := owned.Hold(p.root, scratch); err == nil {
				defer release()
			}
		}
	}
	if b != nil {
		defer b.recordChanges(ctx, p)
	}
	if err != nil {
		return d.of(r.s.ended(err))
	}
	d.verification = b.verification
	ch, err := detect(ctx, r.s, p, b)
	if ch != nil {
		d.listed, d.changedFiles, d.unverified, d.once = true, len(ch.files), ch.unanchored, ch.unanchored
	}
	if errors.Is(err, stopNoChanges) {
		b.nothingChanged(r.s, p, ch)
	}
	if err == nil {
		err = notFiles(p.root, ch.files, p.snap.held)
	}
	if err != nil {
		return d.of(r.s.ended(err))
	}
	pl, err := plan(r.s, p, b, ch)
	if err != nil {
		return d.of(r.s.ended(err))
	}
	if pl.offDisk != "" {
		d.unverified = joinNotes(d.unverified, pl.offDisk)
	}
	prep, err := prepare(ctx, r.s, p, b, ch, pl)
	if err != nil {
		return d.of(r.s.ended(err))
	}
	d.runNumber = b.runNumber
	ran := runGates(ctx, r.s, p, b, ch, pl, prep)
	return d.of(finish(ctx, r.s, p, b, ch, pl, prep, ran))
}

// description is what a result says about the run around its gates, as
// far as the stages got: the project, the base branch, the run number (of
// a run that wrote logs), whether it verified, the changes.
type description struct {
	root, base   string
	runNumber    int
	verification bool
	listed       bool
	changedFiles int
	unverified   string
	// once is what of unverified is told once (outcome.RunResult.Once).
	once string
}

// of is res described.
func (d description) of(res outcome.RunResult) outcome.RunResult {
	res.Root, res.Base, res.Verification = d.root, d.base, d.verification
	res.ChangesListed, res.ChangedFiles, res.RunNumber, res.Once = d.listed, d.changedFiles, d.runNumber, d.once
	if d.unverified != "" && res.Unverified != "" {
		res.Unverified = d.unverified + "; " + res.Unverified
	} else if d.unverified != "" {
		res.Unverified = d.unverified
	}
	return res
}

// cleanup waits for the git questions still running, removes the
// baselines' temporary worktrees, closes the console log and releases the
// lock.
func (r *runner) cleanup() {
	if r.b != nil {
		r.b.changed.wait()
		r.b.refs.wait()
	}
	if r.p != nil {
		r.p.loc.wait()
		r.p.snap.close()
		r.p.baselines.close()
	}
	if err := r.s.cons.Close(); err != nil {
		r.s.cons.Printf(lineWarning, err)
	}
	if r.b != nil && r.b.lock != nil {
		if err := r.b.lock.Release(); err != nil {
			r.s.cons.Printf(lineWarning, err)
		}
	}
	if r.release != nil {
		r.release()
	}
}
