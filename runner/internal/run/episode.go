package run

import (
	"context"
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A run's place in the work tree's lifecycle: full or partial (see
// project.fullRun), a look at a past commit outside it, and its retry
// budget, counted per episode and agent session in the verdict book. The
// budget is the agent's: only the stop hook's runs (Options.Agent) spend
// it, only those that judged the change (an infrastructure error or an
// interrupted run spends nothing), and each only its own session's: a
// session is at the retry limit only when its own stops were sent back
// max_retries+1 times in the episode, so its first stop always runs the
// gates.

// place decides the run number, what is pending (a verification run), and
// the run's place in the retry budget of its episode; at the retry limit
// it stops an agent's run. A look at a past commit numbers its files in
// its own space (CommitDir), is never a verification run and has no
// budget.
func (b *begun) place(ctx context.Context, s *services, p *project) error {
	if p.pastCommit() {
		// Its directory is made, or refused when it is a link or not a
		// directory, before anything is read or written there.
		if err := runDir(p.logDir, logdir.CommitDir); err != nil {
			return err
		}
		b.runDir = filepath.Join(p.logDir, logdir.CommitDir)
		n, err := logdir.NextRunNumber(b.runDir)
		if err != nil {
			return err
		}
		b.runNumber, b.attempt = n, 1
		return nil
	}
	b.runDir = p.logDir
	n, err := logdir.NextRunNumber(p.logDir)
	if err != nil {
		return err
	}
	b.runNumber = n
	var warnings []string
	b.pending, warnings = b.rec.Book.Pending(p.logDir, p.env, b.jobs.has)
	for _, w := range warnings {
		s.cons.Printf(lineWarning, w)
	}
	b.attempt = b.rec.Book.Budget(p.opts.SessionID).Runs + 1
	if p.opts.Agent && b.attempt == 1 && b.rec.Book.ReachedElsewhere(p.opts.SessionID, p.cfg.MaxRetries+1) {
		// Its own budget was never spent: the line says why the limit
		// another session reached does not stop it.
		s.cons.Printf(lineFreshBudget, reasonNewSession, p.cfg.MaxRetries+1)
		b.fresh = reasonNewSession
	}
	if p.opts.Agent && retryLimitReached(b.attempt, p.cfg.MaxRetries) {
		why := b.freshBudget(p)
		if why == "" {
			msg := retryLimitMessage(b.attempt, p.cfg.MaxRetries+1, p.cfg.MaxRetries)
			latest, _ := logdir.LatestConsoleLog(p.logDir)
			return &stop{status: outcome.StatusRetryLimitExceeded, line: msg, message: msg, consoleLog: latest,
				unverified: sinceLastRun(ctx, p, b.rec.Book)}
		}
		s.cons.Printf(lineFreshBudget, why, p.cfg.MaxRetries+1)
		b.fresh, b.attempt = why, 1
	}
	// A failed slot whose violations the agent all skipped is not pending,
	// but it is still its latest verdict: the run verifies, and reports the
	// skips.
	b.verification = !b.pending.Empty() || len(b.pending.Skipped) > 0
	if b.verification {
		s.cons.Printf(lineVerification)
	}
	return nil
}

// iteration is the run's place in its episode, for the summary: one more
// than the runs since the episode's first (every run, the agent's and
// those by hand); 1 outside an episode.
func (b *begun) iteration() int {
	e := b.rec.episode()
	if e == nil || e.FirstRun < 1 || e.FirstRun > b.runNumber {
		return b.attempt
	}
	return b.runNumber - e.FirstRun + 1
}

// freshBudget says why an agent session that spent its retry budget gets
// a fresh one, "" when it does not: HEAD moved since its last counted run
// (a new commit). Only the session's own stops spend its budget (see
// verdicts.Book.CountRun): another session, real or made up, neither
// spends it nor renews it. The failures still pending are verified in it,
// so gates that fail now still block.
func (b *begun) freshBudget(p *project) string {
	refs, err := b.refs.get()
	if err == nil && refs.Head != b.rec.Book.Budget(p.opts.SessionID).LastHead {
		return reasonNewCommit
	}
	return ""
}

// judged reports whether a run that ended with status judged the change:
// only such a run of the agent spends its retry budget.
func judged(status outcome.GauntletStatus) bool {
	switch status {
	case outcome.StatusPassed, outcome.StatusPassedWithWarnings, outcome.StatusFailed, outcome.StatusRetryLimitExceeded:
		return true
	}
	return false
}

// episode is the open episode of the book, nil when none is (or the run
// records nothing).
func (r *Record) episode() *verdicts.Episode {
	if r == nil {
		return nil
	}
	return r.Book.Episode
}

// recordEnd records in the verdict book how a run that ran its gates
// ended (e) and where it left the repository (ep): the snapshot the next
// run verifies the changes since; a run that archived the logs verified
// every pending failure (Settle); a run that judged the change and left
// failures pending opens an episode when none is open, starting where its
// change set began (changeOrigin); an agent's run that judged the change
// spends one run of the budget (a fresh one first when place granted it);
// a full pass starts the interval and marks the snapshot verified on its
// branch, a failure or a run that could not judge ends the interval.
func recordEnd(ctx context.Context, s *services, p *project, b *begun, ch *changes, e ending, ep endPoint) {
	now := s.now()
	passed := e.status == outcome.StatusPassed || e.status == outcome.StatusPassedWithWarnings
	// A run that could not judge (an infrastructure error) ends the
	// interval as a failure does: the next stop verifies.
	failed := e.status == outcome.StatusFailed || e.status == outcome.StatusRetryLimitExceeded ||
		e.status == outcome.StatusInfrastructureError
	start := verdicts.Episode{StartedAt: now, FirstRun: b.runNumber, SessionID: p.opts.SessionID, Branch: ep.branch, Head: ep.head}
	if judged(e.status) && !e.archived && b.rec.Book.Episode == nil {
		start.Base = changeOrigin(ctx, p, b, ch)
	}
	keep := func(job string) bool { return b.jobs.has(job) }
	env := p.env
	b.rec.save(s, func(bk *verdicts.Book) error {
		if ep.ok {
			if ep.branch != detachedHEAD {
				bk.Branch = ep.branch
			}
			bk.Snapshot = &verdicts.Snapshot{Run: b.runNumber, Ref: ep.ref, Commit: ep.head, Scope: p.scopeName(), Definitions: e.reviewDefs, Key: ep.key, Masked: ep.masked, Staged: ep.staged, Index: ep.index,
				Passed: passed && p.fullRun() && !e.partial}
		}
		switch {
		case e.archived:
			bk.Settle(env)
		case judged(e.status):
			if pending, _ := bk.Pending(p.logDir, env, keep); !pending.Empty() {
				bk.OpenEpisode(start, reasonFirstFailure)
			}
			// A pass the stop answers with gates left unverified (told, not
			// sent back) is no retry: the budget counts the runs that may
			// send the agent back, and this one let it stop.
			if p.opts.Agent && !(passed && e.unverified != "") {
				if b.fresh != "" {
					bk.FreshBudget(p.opts.SessionID, b.fresh)
				}
				bk.CountRun(start, reasonFirstFailure)
			}
		}
		full := p.fullRun() && !e.partial
		bk.Finish(now, full, passed, failed)
		if full && passed {
			bk.PassedFull(env, fullPassOf(p, ep, e))
		}
		if e.unverified != "" {
			// What no gate verified is told at every stop, never skipped by
			// an interval this pass would start.
			bk.LastFullPassAt, bk.FullPass = time.Time{}, nil
		}
		if p.marksVerified() && passed && e.marksPoint(p.opts.Agent) && ep.snapped && ep.branch != detachedHEAD {
			bk.MarkVerified(ep.branch, ep.ref, now)
		}
		return nil
	})
}

// changeOrigin is where the run's change set began: the point it reached
// back to (changes.from), else the merge base of its whole change set
// (git's empty tree without a commit, HEAD when the base is unknown); ""
// when not even HEAD can be read. A run of the uncommitted changes alone
// (-u) judges them against HEAD, but the episode it opens begins where the
// base branch meets the work, as one a full run opens: HEAD would make the
// work committed before it the base's own to every later run that verifies
// the episode (see changes.keepEpisodeBase).
func changeOrigin(ctx context.Context, p *project, b *begun, ch *changes) string {
	if ch.from != "" {
		return ch.from
	}
	refs, err := b.refs.get()
	if err != nil {
		return ""
	}
	if refs.Head == "" {
		return git.EmptyTree
	}
	spec := ch.full
	if spec.Mode == gate.DiffUncommitted {
		spec = gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: spec.BaseBranch}
	}
	if base, err := git.BaseCommit(ctx, p.root, spec); err == nil {
		return base
	}
	return refs.Head
}

// nothingChanged records, after a full run that found nothing changed
// and nothing pending, HEAD as the last point the gates were seen to pass
// on the branch: the work tree is HEAD's, with nothing of the agent's to
// judge against the base; not over commits no point anchors but as
// ending.marksPoint allows.
func (b *begun) nothingChanged(s *services, p *project, ch *changes) {
	if !p.marksVerified() || b.verification || b.rec == nil || ch == nil || !(ending{unanchored: ch.unanchored}).marksPoint(p.opts.Agent) {
		return
	}
	refs, err := b.refs.get()
	loc, lerr := p.loc.get()
	if err != nil || lerr != nil || refs.Head == "" || loc.Branch == detachedHEAD {
		return
	}
	if pt, ok := b.rec.Book.VerifiedOn(loc.Branch); ok && pt.Commit == refs.Head {
		return
	}
	now := s.now()
	b.rec.save(s, func(bk *verdicts.Book) error {
		bk.MarkVerified(loc.Branch, refs.Head, now)
		return nil
	})
}

// fullPassOf is what a full run that passed verified: the snapshot it
// judged, its configuration, everything in the work tree the gates could
// read (the snapshot's Key), the programs its checks name (programsOf)
// and the files outside the work tree they name (e.outside), with the
// commits before its change set it could not look at when it marks no
// point over them (e, see ending.marksPoint); nil without a snapshot.
func fullPassOf(p *project, ep endPoint, e ending) *verdicts.FullPass {
	if !ep.snapped {
		return nil
	}
	fp := &verdicts.FullPass{Ref: ep.ref, Config: ConfigIdentity(p.cfg), Key: ep.key, Outside: e.outside}
	fp.ProgramWords, fp.Programs = programsOf(p.cfg)
	if !p.opts.Agent {
		fp.Unanchored = e.unanchored
	}
	return fp
}
