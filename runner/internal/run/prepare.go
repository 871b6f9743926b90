package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// prepared is what the gates of a run are given besides their jobs.
type prepared struct {
	// consolePath is the run's console log, open from prepare on.
	consolePath string
	// previous is what earlier runs left to verify (nil outside a
	// verification run).
	previous *gate.Pending
	// skips are the agent's skip decisions on the branch (for runs with
	// reviews).
	skips []gate.Skip
	// cache is the run's result cache, its keys computed; nil when the run
	// uses none. base is how the run finds its base commit for baselines,
	// against which a cached pre-existing failure holds.
	cache *cache.Results
	base  cache.BaseQuestion
	// spec is the change scope the gates get; reviewed is true when the
	// run's reviews were given the tree of the run's snapshot: the state
	// then records that tree even if the gates changed the work tree since
	// (see finalSnapshot).
	spec     gate.DiffSpec
	reviewed bool
}

// prepare opens the run's console log and makes what its gates are given:
// the failures earlier runs left to verify, the agent's skip decisions,
// the result cache with the jobs' keys, and the change scope; it writes
// the debug log's RUN_START event and says how many gates run.
func prepare(ctx context.Context, s *services, p *project, b *begun, ch *changes, pl *planned) (*prepared, error) {
	consolePath := logdir.ConsoleName(b.runNumber).Path(b.runDir)
	rel, err := filepath.Rel(p.logDir, b.runDir)
	if err != nil {
		return nil, fmt.Errorf("create log directory %s: %w", b.runDir, err)
	}
	if err := runDir(p.logDir, rel); err != nil {
		return nil, err
	}
	if err := s.cons.Open(consolePath, p.root); err != nil {
		return nil, err
	}
	prep := &prepared{consolePath: consolePath}
	prep.previous = s.deps.previous(s, p, b)
	prep.skips = branchSkips(s, p, pl.jobs)
	skipDecided(prep.previous, prep.skips)
	prep.cache = openCache(p, b)
	if prep.cache != nil {
		computeKeys(ctx, p, b, ch, pl.jobs, prep.cache, prep.skips)
		for _, j := range pl.jobs {
			if why := prep.cache.Uncached()[j.ID]; why != "" {
				s.cons.Printf(lineUncached, console.Text(j.ID), console.Text(why))
			}
		}
		prep.base = baseQuestion(ctx, p, b, ch)
	}
	prep.spec, prep.reviewed = gateSpec(s, p, ch.spec, pl.jobs)
	logRunStart(ctx, p, prep.spec, len(pl.jobs), b.verification)
	s.cons.Printf(lineRunning, len(pl.jobs))
	return prep, nil
}

// branchSkips are the agent's skip decisions on the current branch, for
// the review gates among jobs (none without a review job: no git
// question).
func branchSkips(s *services, p *project, jobs []gate.Job) []gate.Skip {
	if !hasReview(jobs) {
		return nil
	}
	loc, err := p.loc.get()
	if err != nil {
		s.cons.Printf(lineWarning, decisions.Warning(err))
		return nil
	}
	skips, err := decisions.Load(loc)
	if err != nil {
		s.cons.Printf(lineWarning, decisions.Warning(err))
	}
	return skips
}

// skipDecided moves the violations still pending in previous that fall
// under a standing skip decision of the branch (skips) among the skipped
// ones: the agent may have marked one in another review file than the one
// its slot's verdict wrote (an older run's, by hand), and its word counts
// wherever it wrote it. A slot whose violations are all decided so is no
// longer pending. A violation the agent marked fixed stays to be verified.
func skipDecided(previous *gate.Pending, skips []gate.Skip) {
	if previous == nil || len(skips) == 0 {
		return
	}
	for job, slots := range previous.Slots {
		for index, vs := range slots {
			open := make([]gate.Violation, 0, len(vs))
			for _, v := range vs {
				sk, ok := decidedSkip(v, skips)
				if !ok || v.Status == gate.ViolationFixed {
					open = append(open, v)
					continue
				}
				v.Status = gate.ViolationSkipped
				if v.Result == nil && sk.Note != "" {
					v.Result = sk.Note
				}
				if previous.Skipped[job] == nil {
					previous.Skipped[job] = map[int][]gate.Violation{}
				}
				previous.Skipped[job][index] = append(previous.Skipped[job][index], v)
			}
			if len(vs) > 0 && len(open) == 0 {
				delete(slots, index)
			} else {
				slots[index] = open
			}
		}
		if len(slots) == 0 {
			delete(previous.Slots, job)
		}
	}
}

// decidedSkip is the skip decision about the pending violation v: one
// made for the very code v flags, with a similar issue
// (fingerprint.Exactly), never one that only shares v's id (an id is
// carried over from the violation a report was matched with).
func decidedSkip(v gate.Violation, skips []gate.Skip) (gate.Skip, bool) {
	later := review.Fields(v)
	for _, sk := range skips {
		if fingerprint.Exactly(fingerprint.Fields{File: sk.File, Line: sk.Line, Anchor: sk.Anchor, Issue: sk.Issue}, later) {
			return sk, true
		}
	}
	return gate.Skip{}, false
}

// openCache returns the result cache of the run, nil when the run does
// not use one: no version to key by, the project turned it off, the
// repository cannot be located or has submodules (a note in the debug
// log).
func openCache(p *project, b *begun) *cache.Results {
	if !p.cacheWanted() {
		return nil
	}
	loc, err := p.loc.get()
	if err != nil {
		p.debug.Event(debuglog.EventCache, fmt.Sprintf("off: %v", err))
		return nil
	}
	run := cache.Run{Version: p.opts.Version, BaseBranch: p.base, CI: p.eff.CI, Settings: cache.SettingsOf(p.cfg), Env: p.env}
	if refs, err := b.refs.get(); err == nil && refs.BaseErr == nil {
		run.BaseCommit = refs.Base
	}
	return cache.Open(p.root, loc, run, p.cfg, !p.opts.NoCache, p.debug)
}

// computeKeys computes the keys in the cache c of jobs on what the run's
// snapshot says a gate can see (its KeyTree), the reviews' with the inputs
// of their diff: the whole change set ch.full, the refs and the skip
// decisions they apply (skips). Without a snapshot, or with one that
// cannot hold the whole work tree, no job has a key.
func computeKeys(ctx context.Context, p *project, b *begun, ch *changes, jobs []gate.Job, c *cache.Results, skips []gate.Skip) {
	tree, err := p.snap.keyTree()
	if err != nil {
		p.debug.Event(debuglog.EventCache, fmt.Sprintf("no keys: %v", err))
		return
	}
	ends := p.snap.listing().LinkEnds()
	empty := p.snap.listing().EmptyDirs()
	var diff *cache.Diff
	if cache.WantsDiff(jobs) {
		if refs, err := b.refs.get(); err == nil {
			diff = cache.ReviewDiff(ctx, p.root, ch.full, refs, skips)
		}
	}
	c.ComputeKeys(ctx, tree, empty, ends, jobs, diff)
}

// baseQuestion is how the run finds the base commit its failed checks with
// baseline: true are compared on (git.BaseCommit of ch.base, as
// checkRunner asks it): the question names the change scope and the
// commits it starts from ("" when they are not known, or in CI, whose head
// comes from the environment), and the commit is asked of git once, only
// when a cached pre-existing failure was found by another question.
func baseQuestion(ctx context.Context, p *project, b *begun, ch *changes) cache.BaseQuestion {
	spec := ch.base
	q := cache.BaseQuestion{Commit: sync.OnceValue(func() string {
		commit, _ := git.BaseCommit(ctx, p.root, spec)
		return commit
	})}
	if refs, err := b.refs.get(); err == nil && refs.Head != "" && spec.Mode != gate.DiffCI {
		q.Question = fmt.Sprintf("mode=%s head=%s branch=%s base=%s commit=%s fix=%s",
			spec.Mode, refs.Head, spec.BaseBranch, refs.Base, spec.Commit, spec.FixBase)
	}
	return q
}

// gateSpec is the change scope the gates get: spec with the tree of the
// run's snapshot of the work tree when reviews (or the debug log's diff
// statistics) need one, so that every gate sees the same work tree; and
// whether the reviews were given that tree (the one the run's state then
// records).
func gateSpec(s *services, p *project, spec gate.DiffSpec, jobs []gate.Job) (gate.DiffSpec, bool) {
	needTree := p.debug != nil || hasReview(jobs)
	if !needTree || spec.WorkTree != "" || spec.Mode == gate.DiffCommit || spec.Mode == gate.DiffCI {
		return spec, spec.WorkTree != "" && hasReview(jobs)
	}
	tree, err := p.snap.tree()
	if err != nil {
		s.cons.Printf(lineWarning, err)
		return spec, false
	}
	spec.WorkTree, spec.ReadTree = tree, p.snap.readTree()
	return spec, hasReview(jobs)
}

// hasReview reports whether jobs hold a job that reads the diff (a
// review).
func hasReview(jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.ReadsDiff() {
			return true
		}
	}
	return false
}

// logRunStart writes the debug log's RUN_START event with the diff
// statistics of spec.
func logRunStart(ctx context.Context, p *project, spec gate.DiffSpec, gates int, verification bool) {
	if p.debug == nil {
		return
	}
	mode := "full"
	if verification {
		mode = "verification"
	}
	st, err := git.DiffStats(ctx, p.root, spec)
	if err != nil {
		st.BaseRef = spec.BaseBranch
	}
	p.debug.Event(debuglog.EventRunStart, fmt.Sprintf("mode=%s base_ref=%s files_changed=%d files_new=%d files_modified=%d files_deleted=%d lines_added=%d lines_removed=%d gates=%d",
		mode, st.BaseRef, st.Changed(), st.New, st.Modified, st.Deleted, st.LinesAdded, st.LinesRemoved, gates))
}

// EnvIdentity is the fingerprint of the environment this process runs its
// gates in (cache.EnvIdentity of its variables, the review CLIs they find,
// the PATH directories and the user files reviewers and tool runtimes
// read): the result cache and the reviewer-answer cache key by it, and the
// verdict book keeps it with the full pass that starts the interval, so a
// stop in another environment (a run by hand with another PATH, GOFLAGS,
// reviewer, a program added to a PATH directory or a reviewer's file in
// the home directory) takes nothing a run there proved. A process answers
// one command, so it is taken once for each environment the process has,
// when the run starts (about 0.2 ms of stats), and what the gates then do
// to those files does not change it within the run.
func EnvIdentity() string {
	environ := os.Environ()
	joined := strings.Join(environ, "\x00")
	envMemo.Lock()
	defer envMemo.Unlock()
	if envMemo.id == "" || envMemo.environ != joined {
		envMemo.environ, envMemo.id = joined, cache.EnvIdentity(environ)
	}
	return envMemo.id
}

// envMemo is EnvIdentity's last answer and the environment it is for.
var envMemo struct {
	sync.Mutex
	environ, id string
}

// runDir makes the log directory logDir and its subdirectory rel (".",
// or CommitDir), which is refused when it, or a directory between, is a
// symbolic link or not a directory (owned.MkdirAll): the run's logs are
// never written through a link below the log directory.
func runDir(logDir, rel string) error {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return fmt.Errorf("create log directory %s: %w", logDir, err)
	}
	if err := owned.MkdirAll(logDir, rel, 0o755); err != nil {
		return fmt.Errorf("create log directory: %w", err)
	}
	return nil
}

// programsOf are the words of the check commands of cfg that can name a
// program, and the identity of the programs they name on this process's
// PATH (cache.ProgramWords, cache.ProgramsIdentity): EnvIdentity holds the
// PATH directories, and this each program the checks run by name, which
// can be rewritten in place.
func programsOf(cfg *config.Config) ([]string, string) {
	commands := make([]string, 0, len(cfg.Checks))
	for _, c := range cfg.Checks {
		commands = append(commands, c.Command)
	}
	words := cache.ProgramWords(commands)
	return words, cache.ProgramsIdentity(words, os.Getenv("PATH"))
}

// PassedHere reports whether the interval's full pass fp found the
// programs its checks name where this process finds them, unchanged (or
// recorded none: an older version's pass, or none at all).
func PassedHere(fp *verdicts.FullPass) bool {
	return fp == nil || fp.Programs == "" || fp.Programs == cache.ProgramsIdentity(fp.ProgramWords, os.Getenv("PATH"))
}
