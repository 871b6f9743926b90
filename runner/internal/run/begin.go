package run

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// begun is a run that holds the lock: the state it found, the git
// questions it asked early (answered late, so that independent git
// processes overlap) and its place in the log directory and the episode.
type begun struct {
	// lock is held until the run ends.
	lock *lock.Lock
	// prev is what the previous run recorded of the work tree it judged
	// (the verdict book's, else the execution state's; zero after
	// auto-clean).
	prev state.State
	// rec is the verdict book (nil for a look at a past commit, which
	// records nothing); jobs are every job the configuration can give.
	rec  *Record
	jobs configured
	// pending is what the book left to verify when the run began, of the
	// configured jobs.
	pending verdicts.Pending
	// refs resolves HEAD, the base branch and what the previous snapshot
	// records; changed lists the changes of the run's change scope; exists
	// tells which changed paths exist as files.
	refs    *future[git.Refs]
	changed *future[cache.Listed]
	exists  *existence
	// runDir holds the run's numbered files: the log directory, or its
	// CommitDir space for a look at a past commit (-c); runNumber is N of
	// them.
	runDir    string
	runNumber int
	// budget is the run's place in the retry budget.
	budget
	// verification is true when failures are pending: the run verifies
	// them.
	verification bool
}

// begin takes the run lock (taking over one no live run can hold, see
// lockBounds), reads the execution state and the verdict book (openRecord:
// made from the log directory once; what the previous run recorded comes
// from it), keeps the skips the agent marked since the last run as
// decisions of the branch the logs were written on (before auto-clean
// archives them), starts listing the changes, archives the logs when the
// previous run's context is gone (autoClean), drops another branch's
// verdicts (Record.follow) and places the run (place). Once the lock is
// taken the run is returned, with the error that ends it.
func begin(ctx context.Context, s *services, p *project) (*begun, error) {
	lk, err := lock.AcquireWithin(p.logDir, lockBounds(ctx, p.cfg))
	if err != nil {
		var held *lock.HeldError
		if !errors.As(err, &held) {
			err = fmt.Errorf("acquire lock: %w", err)
		}
		return nil, err
	}
	if lk.Warning != "" {
		s.cons.Printf(lineWarning, lk.Warning)
	}
	// What a run killed outright left: no live run holds it any more.
	reaped := procgroup.Reap(p.logDir)
	if reaped > 0 {
		s.cons.Printf(lineWarning, fmt.Sprintf("killed %d gate process group(s) an earlier run, killed outright, left running", reaped))
	}
	// Only a run killed outright leaves pending logs, with its lock (taken
	// over above) or its gates' groups: the steady stop lists no temporary
	// directory.
	if lk.Warning != "" || reaped > 0 {
		if n := logdir.SweepPending(p.root); n > 0 {
			s.cons.Printf(lineWarning, fmt.Sprintf("removed %d directory(ies) of pending logs an earlier run, killed outright, left outside the project", n))
		}
	}
	b := &begun{lock: lk}
	b.jobs = configuredJobs(p.cfg)
	st := readState(s, p.logDir)
	prev := state.State{}
	if st != nil {
		prev = *st
	}
	if !p.pastCommit() {
		b.rec = openRecord(ctx, s, p, b.jobs.names, st)
		prev = b.rec.previous(prev)
	}
	var rec decisions.Recorded
	if b.rec != nil {
		rec = decisions.RecordedOf(b.rec.Book, p.logDir, p.env)
	}
	rec.Earlier = StateTaken(ctx, p.root, p.logDir)
	for _, w := range decisions.Harvest(ctx, p.root, p.logDir, b.jobs.names, rec, prev.Branch, p.locate, s.now()) {
		s.cons.Printf(lineWarning, w)
	}
	// The run's changes do not depend on what follows: git lists them while
	// the state is checked.
	spec := p.diffSpec()
	// The refs read the previous snapshot as the state names it now:
	// auto-clean may reset prev while they are asked.
	prevSnapshot := prev.WorkingTreeRef
	b.refs = lazy(func() (git.Refs, error) { return resolveRefs(ctx, p, prevSnapshot) })
	b.changed = listChanges(ctx, p, b.refs, spec)
	b.exists = &existence{root: p.root, changed: b.changed}
	// A look at a past commit leaves the work tree's logs as they are.
	if !p.pastCommit() {
		cleaned, err := autoClean(ctx, s, p, b.refs, prev)
		if err != nil {
			return b, err
		}
		if cleaned {
			prev = state.State{}
		}
		if loc, err := p.loc.get(); err == nil {
			b.rec.follow(s, loc.Branch)
		}
	}
	b.prev = prev
	return b, b.place(ctx, s, p)
}

// readState reads the execution state of the previous run; nil when there
// is none (or it is unreadable, with a warning).
func readState(s *services, logDir string) *state.State {
	prev, err := state.Read(logDir)
	if err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("ignoring unreadable execution state: %v", err))
		return nil
	}
	return prev
}

// configured are every job the configuration can give for the tree as
// it is (entry.Configured): their ids and the names of their files.
type configured struct {
	ids   map[string]bool
	names *logdir.JobNames
}

// has reports whether job is configured: what the verdict book holds of
// other jobs (a gate removed, a directory gone) is not pending.
func (c configured) has(job string) bool { return c.ids[job] }

// budget is a run's place in the retry budget of its episode.
type budget struct {
	// attempt is 1 for the episode's first run; fresh says why the run
	// starts a fresh budget ("": it does not).
	attempt int
	fresh   string
}

// configuredJobs are the jobs the configuration cfg can give.
func configuredJobs(cfg *config.Config) configured {
	jobs := entry.Configured(cfg)
	c := configured{ids: make(map[string]bool, len(jobs))}
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		ids = append(ids, j.ID)
		c.ids[j.ID] = true
	}
	c.names = logdir.NewJobNames(ids...)
	return c
}

// locate answers where the project sits in its repository, once per run.
func (p *project) locate(context.Context) (git.Location, error) { return p.loc.get() }

// cacheWanted reports whether the run may use the result cache (the
// project and the caller allow it), before the jobs are known.
func (p *project) cacheWanted() bool { return p.opts.Version != "" && p.cfg.Cache.Enabled }

// listChanges starts listing the run's changes of spec: from the changes
// memo of the result cache when the cache is on and the scope is local,
// else from git; the changes of the work tree (local and uncommitted
// scopes) are read from the run's snapshot.
func listChanges(ctx context.Context, p *project, refs *future[git.Refs], spec gate.DiffSpec) *future[cache.Listed] {
	if spec.Mode != gate.DiffLocal && spec.Mode != gate.DiffUncommitted {
		return async(func() (cache.Listed, error) {
			ch, err := git.ChangedFiles(ctx, p.root, spec)
			return cache.Listed{Changes: ch}, err
		})
	}
	if !p.cacheWanted() || spec.Mode != gate.DiffLocal {
		p.snap.start()
		return async(func() (cache.Listed, error) {
			ch, err := git.ChangedFilesIn(ctx, p.root, spec, p.snap.listing())
			return cache.Listed{Changes: ch}, err
		})
	}
	// The memo's key needs the snapshot, HEAD, the base and where the
	// project is: all asked at once.
	p.snap.start()
	refs.start()
	p.loc.start()
	return async(func() (cache.Listed, error) {
		return changesMemo(ctx, p, refs, spec).Changes(ctx, p.root, spec, p.snap.listing(), p.debug)
	})
}

// changesMemo is the changes memo of the run's changes of spec, nil when
// the run has none (no snapshot, or one that cannot hold the whole work
// tree, no HEAD, a base that names nothing, a repository that cannot be
// located).
func changesMemo(ctx context.Context, p *project, refs *future[git.Refs], spec gate.DiffSpec) *cache.Memo {
	loc, err := p.loc.get()
	if err != nil {
		return nil
	}
	tree, err := p.snap.keyTree()
	if err != nil {
		return nil
	}
	r, err := refs.get()
	if err != nil {
		return nil
	}
	m, _ := cache.NewMemo(ctx, p.root, p.opts.Version, loc, tree, p.snap.listing().UserIndex(), r, spec)
	return m
}

// recordChanges keeps the changes listed on a miss of the changes memo,
// when their key still describes the repository (cache.Listed.Record). A
// run that ended early still lists them meanwhile.
func (b *begun) recordChanges(ctx context.Context, p *project) {
	l, err := b.changed.get()
	if err != nil {
		return
	}
	l.Record(ctx, p.root, b.exists.of(l.Files), p.snap.still, p.debug)
}

// existence tells whether a changed path exists as a file (see
// entry.Narrow): as the changes memo recorded it for the paths it holds,
// else as the file system says, each path asked once.
type existence struct {
	root    string
	changed *future[cache.Listed]
	once    sync.Once
	exists  func(string) bool
}

// of is the run's answer, made the first time from the changed paths
// files.
func (e *existence) of(files []string) func(string) bool {
	e.once.Do(func() {
		fs := entry.FileExists(e.root, files)
		var memo map[string]bool
		if l, err := e.changed.get(); err == nil {
			memo = l.Exists
		}
		e.exists = func(f string) bool {
			if present, ok := memo[f]; ok {
				return present
			}
			return fs(f)
		}
	})
	return e.exists
}

// resolveRefs reads HEAD, the base branch and the previous snapshot
// (git.ResolveRefs; from the refs memo, git.ResolveRefsKept, while nothing
// git reads for them changed), keeping the base's remote-tracking copy only when git
// fetched it there (git.Fetched; from the fetched memo, git.FetchedKept,
// while nothing it reads changed): a copy moved by hand or by a push from
// this repository holds what the agent put there, and a commit it holds
// is not the base's for that (baseMovedOver, remoteHolds, remoteMerged).
// Each run first records what the linked worktrees' HEAD reflogs say was
// made there (git.RememberMade), so that such a commit, pushed and
// fetched back, stays the agent's after its worktree is removed; a record
// that cannot be written leaves the reflogs as they are to be read.
func resolveRefs(ctx context.Context, p *project, snapshot string) (git.Refs, error) {
	loc, lerr := p.loc.get()
	var r git.Refs
	var err error
	if lerr == nil {
		_ = git.RememberMade(ctx, p.root, loc)
		r, err = git.ResolveRefsKept(ctx, loc, p.root, p.base, snapshot)
	} else {
		r, err = git.ResolveRefs(ctx, p.root, p.base, snapshot)
	}
	if err != nil || r.Remote == "" {
		return r, err
	}
	var fetched bool
	if lerr == nil {
		fetched, err = git.FetchedKept(ctx, loc, p.root, p.base, r.Remote)
	} else {
		fetched, err = git.Fetched(ctx, p.root, p.base, r.Remote)
	}
	if err != nil {
		return git.Refs{}, err
	}
	if !fetched {
		r.Remote = ""
	}
	return r, nil
}
