package runner

import (
	"context"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// The result cache (issue 16). A gate that passed is recorded in a ledger
// under the git common directory, keyed by everything its result depends
// on (see the cache package); a later run whose key for the gate is the
// same takes the pass from the ledger instead of running the gate. Reviews
// also keep their reviewers' answers there, by the exact question.
//
// Safety rules: a pass is only ever taken for the exact key it was recorded
// under; anything that makes a key uncertain (no snapshot, no version, a
// path that cannot be looked up) leaves the gate uncached; only passes are
// recorded, and only when the work tree the gates ran on is still the one
// the keys were computed from (a gate that changed it proves nothing about
// either tree).

// CacheKind is the store kind (a directory of store.Dir in the git common
// directory) of the result cache.
const CacheKind = "cache"

// CacheDir is the directory of the result cache of the repository whose
// git common directory is commonDir.
func CacheDir(commonDir string) string { return filepath.Join(commonDir, store.Dir, CacheKind) }

// runCache is the result cache as one run uses it.
type runCache struct {
	ledger *ledger.Ledger
	run    cache.Run
	// prefix is the project root below the top level ("" or ending in
	// "/"): tree paths are looked up under it.
	prefix string
	// lookup is false with --no-cache: results are recorded, not taken.
	lookup bool
	// keys are the keys of the run's jobs that have one, by job id.
	keys map[string]string
	// tree is the top-level tree the keys were computed from.
	tree string
	// root is the project root (git runs there); debug takes the notes of
	// what the cache did not do.
	root  string
	debug *debuglog.Log
}

// openCache returns the result cache of the run, nil when the run does
// not use one: no version to key by, the project turned it off, or the
// repository cannot be located (a note in the debug log).
func (e *execution) openCache(ctx context.Context) *runCache {
	if e.opts.Version == "" || !e.cfg.Cache.Enabled {
		return nil
	}
	loc, err := e.loc.get()
	if err != nil {
		e.debug.Event(debuglog.EventCache, fmt.Sprintf("off: %v", err))
		return nil
	}
	if hasSubmodules(e.root, loc.Prefix) {
		e.debug.Event(debuglog.EventCache, "off: the repository has submodules, whose work trees no key covers")
		return nil
	}
	c := &runCache{
		ledger: ledger.Open(CacheDir(loc.CommonDir), cacheBytes(e.cfg)),
		prefix: loc.Prefix,
		lookup: !e.opts.NoCache,
		keys:   map[string]string{},
		root:   e.root,
		debug:  e.debug,
		run: cache.Run{Version: e.opts.Version, Project: loc.Prefix, BaseBranch: e.base, CI: e.ci,
			Settings: cache.SettingsOf(e.cfg)},
	}
	if refs, err := e.refs.get(); err == nil && refs.BaseErr == nil {
		c.run.BaseCommit = refs.Base
	}
	return c
}

// cacheBytes is the bound of the project's result cache in bytes.
func cacheBytes(cfg *config.Config) int64 { return int64(cfg.Cache.MaxSizeMB * (1 << 20)) }

// hasSubmodules reports whether the work tree of the project at root
// (prefix below its top level) declares submodules: a submodule's work
// tree is not in the snapshot (only the commit it is at), so no key could
// cover what a gate sees there; the cache stays off.
func hasSubmodules(root, prefix string) bool {
	top := root
	for p := strings.TrimSuffix(prefix, "/"); p != ""; p = path.Dir(p) {
		top = filepath.Dir(top)
		if path.Dir(p) == "." {
			break
		}
	}
	_, err := os.Lstat(filepath.Join(top, ".gitmodules"))
	return err == nil
}

// cacheScope is the cache scope of job, "" when the gate stays out of the cache.
func cacheScope(job gate.Job) string {
	var s config.CacheScope
	switch {
	case job.Check != nil:
		s = job.Check.Cache
	case job.Review != nil:
		s = job.Review.Cache
	}
	switch s {
	case config.CacheOff:
		return ""
	case config.CacheEntryPoint:
		return cache.ScopeEntryPoint
	}
	return cache.ScopeTree
}

// computeKeys computes the keys of jobs on the snapshot tree of the run
// (one git process for every path they need); a job whose key cannot be
// computed has none, and stays out of the cache.
func (e *execution) computeKeys(ctx context.Context, c *runCache, ch changes, jobs []gate.Job) {
	tree, err := e.snapshotTree(ctx)
	if err != nil {
		e.debug.Event(debuglog.EventCache, fmt.Sprintf("no keys: %v", err))
		return
	}
	c.tree = tree
	var diff *cache.Diff
	for _, j := range jobs {
		if j.Kind == gate.KindReview && cacheScope(j) != "" {
			diff = e.reviewDiff(ctx, ch)
			break
		}
	}
	keys, err := c.keysOn(ctx, tree, jobs, diff)
	if err != nil {
		e.debug.Event(debuglog.EventCache, fmt.Sprintf("no keys: %v", err))
		return
	}
	c.keys = keys
}

// keysOn computes the keys of jobs for the top-level tree, with diff the
// diff inputs of review jobs (nil: reviews get no key).
func (c *runCache) keysOn(ctx context.Context, tree string, jobs []gate.Job, diff *cache.Diff) (map[string]string, error) {
	paths := map[string]bool{}
	wants := map[string][]string{}
	for _, j := range jobs {
		switch cacheScope(j) {
		case cache.ScopeTree:
			paths[c.prefix] = true
		case cache.ScopeEntryPoint:
			ps, ok := cache.Paths(j)
			if !ok {
				paths[c.prefix] = true // keyed by the whole tree instead
				continue
			}
			wants[j.ID] = ps
			for _, p := range ps {
				paths[c.treePath(p)] = true
			}
		}
	}
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	ids := map[string]git.TreeEntry{"": {ID: tree, Type: "tree"}}
	if len(list) > 1 || (len(list) == 1 && list[0] != "") {
		var err error
		if ids, err = git.TreeEntries(ctx, c.root, tree, list); err != nil {
			return nil, err
		}
	}
	keys := map[string]string{}
	sums := changedSums{}
	for _, j := range jobs {
		s := cacheScope(j)
		if s == "" {
			continue
		}
		g := cache.Gate{Job: j, Scope: s, ChangedSum: sums.of(j.Changed)}
		if j.Kind == gate.KindReview {
			if diff == nil {
				continue
			}
			d := *diff
			g.Diff = &d
		}
		if ps, ok := wants[j.ID]; ok {
			for _, p := range ps {
				g.Objects = append(g.Objects, cache.Object{Path: p, ID: ids[c.treePath(p)].ID})
			}
		} else {
			g.Scope, g.Tree = cache.ScopeTree, ids[c.prefix].ID
		}
		k, err := cache.Key(c.run, g)
		if err != nil {
			c.debug.Event(debuglog.EventCache, fmt.Sprintf("%s: %v", j.ID, err))
			continue
		}
		keys[j.ID] = k
	}
	return keys, nil
}

// changedSums fingerprints the changed-file lists of jobs, once for a list
// several checks share (the same slice).
type changedSums map[sliceID]string

// sliceID identifies a slice: where it starts and its length.
type sliceID struct {
	first *string
	n     int
}

// of is the fingerprint of list.
func (s changedSums) of(list []string) string {
	if len(list) == 0 {
		return cache.ListFingerprint(list)
	}
	id := sliceID{&list[0], len(list)}
	if sum, ok := s[id]; ok {
		return sum
	}
	sum := cache.ListFingerprint(list)
	s[id] = sum
	return sum
}

// treePath is p (relative to the project root) relative to the top level.
func (c *runCache) treePath(p string) string {
	if p == "." {
		return strings.TrimSuffix(c.prefix, "/")
	}
	return path.Join(c.prefix, p)
}

// reviewDiff is what the diff of the run's reviews is computed from, nil
// when it cannot be pinned down (reviews are not cached then). A
// verification run's reviews are keyed by the scope they verify.
func (e *execution) reviewDiff(ctx context.Context, ch changes) *cache.Diff {
	refs, err := e.refs.get()
	if err != nil {
		return nil
	}
	d := &cache.Diff{Mode: ch.full.Mode, Skips: cache.SkipsFingerprint(e.branchSkips)}
	switch ch.full.Mode {
	case gate.DiffLocal:
		if refs.BaseErr != nil || refs.Head == "" {
			return nil
		}
		mb, err := git.MergeBase(ctx, e.root, refs.Base, refs.Head)
		if err != nil || mb == "" {
			return nil
		}
		d.MergeBase = mb
	case gate.DiffUncommitted:
		d.Head = refs.Head
	case gate.DiffCommit:
		sha, err := git.ResolveCommit(ctx, e.root, ch.full.Commit)
		if err != nil || sha == "" {
			return nil
		}
		d.Commit = sha
	default:
		return nil // CI: a fresh clone has no cache to speak of
	}
	return d
}

// takeCached returns the results the cache holds for jobs (by index; their
// logs written and their lines printed) and the jobs left to run.
func (e *execution) takeCached(c *runCache, jobs []gate.Job, env gate.Env, report reporter) (map[int]gate.Result, []gate.Job) {
	if c == nil || !c.lookup || len(c.keys) == 0 {
		return nil, jobs
	}
	hits := map[int]gate.Result{}
	var rest []gate.Job
	now := e.now()
	for i, j := range jobs {
		key, ok := c.keys[j.ID]
		if !ok {
			rest = append(rest, j)
			continue
		}
		var p cache.Proof
		stored, ok, why := c.ledger.Get(key, &p)
		if why != nil {
			e.debug.Event(debuglog.EventCache, fmt.Sprintf("%s: %v", j.ID, why))
		}
		if !ok || p.Job != j.ID || p.Status != gate.StatusPass {
			rest = append(rest, j)
			continue
		}
		res := cachedResult(j, p, stored, now)
		proof := console.CachedProof(*res.Cached)
		switch j.Kind {
		case gate.KindCheck:
			res = check.WriteCached(env, j, res, proof)
		case gate.KindReview:
			res = review.WriteCached(env, j, res, cachedSlots(p), proof, e.now)
		}
		report.Result(res)
		hits[i] = res
	}
	return hits, rest
}

// cachedResult is the result of job that p proved, stored at stored.
func cachedResult(job gate.Job, p cache.Proof, stored, now time.Time) gate.Result {
	return gate.Result{JobID: job.ID, Status: gate.StatusPass, Message: p.Message, Skipped: p.Skipped,
		Cached: &gate.Cached{At: stored, Age: now.Sub(stored), Run: p.Run, Root: p.Root, ConsoleLog: p.ConsoleLog}}
}

// cachedSlots are the slots of a cached review.
func cachedSlots(p cache.Proof) []review.CachedSlot {
	out := make([]review.CachedSlot, 0, len(p.Slots))
	for _, s := range p.Slots {
		out = append(out, review.CachedSlot{Adapter: s.Adapter, Index: s.Index, Message: s.Message})
	}
	return out
}

// mergeResults puts the cached results and those of the jobs that ran
// (in the order of ran) back in job order.
func mergeResults(jobs []gate.Job, hits map[int]gate.Result, ran []gate.Result) []gate.Result {
	if len(hits) == 0 {
		return ran
	}
	byID := make(map[string]gate.Result, len(ran))
	for _, r := range ran {
		byID[r.JobID] = r
	}
	out := make([]gate.Result, 0, len(jobs))
	for i, j := range jobs {
		if r, ok := hits[i]; ok {
			out = append(out, r)
		} else if r, ok := byID[j.ID]; ok {
			out = append(out, r)
		}
	}
	return out
}

// record keeps the passes of the gates that ran in the ledger, when the
// work tree is still the one their keys were computed from, and bounds
// the ledger.
func (e *execution) record(ctx context.Context, c *runCache, results []gate.Result, consoleLog string) {
	if c == nil || len(c.keys) == 0 {
		return
	}
	var proofs []cache.Proof
	for _, r := range results {
		if _, ok := c.keys[r.JobID]; ok && r.Cached == nil && r.Status == gate.StatusPass && !r.Infrastructure {
			proofs = append(proofs, e.proof(r, consoleLog))
		}
	}
	if len(proofs) == 0 {
		return
	}
	if moved, err := e.treeMoved(ctx); err != nil || moved {
		e.debug.Event(debuglog.EventCache, fmt.Sprintf("nothing recorded: the work tree changed during the gates (%v)", err))
		return
	}
	for _, p := range proofs {
		if err := c.ledger.Put(c.keys[p.Job], p); err != nil {
			e.debug.Event(debuglog.EventCache, fmt.Sprintf("%s not recorded: %v", p.Job, err))
		}
	}
	if _, err := c.ledger.Sweep(); err != nil {
		e.debug.Event(debuglog.EventCache, err.Error())
	}
}

// proof is the record of a passing result r of this run.
func (e *execution) proof(r gate.Result, consoleLog string) cache.Proof {
	p := cache.Proof{Job: r.JobID, Status: gate.StatusPass, Message: r.Message, Duration: r.Duration,
		Run: e.runNumber, Root: e.root, ConsoleLog: consoleLog, Skipped: r.Skipped}
	for _, s := range r.Slots {
		p.Slots = append(p.Slots, cache.Slot{Adapter: s.Adapter, Index: s.Index, Message: s.Message})
	}
	return p
}

// answerStore keeps reviewers' answers in the ledger (review.Answers).
type answerStore struct {
	ledger  *ledger.Ledger
	version string
	// take is false with --no-cache: answers are kept, not taken.
	take  bool
	debug *debuglog.Log
}

// Answer returns the kept answer of adapter with model to stdin in slot.
func (a answerStore) Answer(adapter, model string, slot int, stdin string) (review.StoredAnswer, bool) {
	if !a.take {
		return review.StoredAnswer{}, false
	}
	var s review.StoredAnswer
	_, ok, why := a.ledger.Get(cache.AnswerKey(a.version, adapter, model, slot, stdin), &s)
	if why != nil {
		a.debug.Event(debuglog.EventCache, why.Error())
	}
	return s, ok && s.Text != ""
}

// Keep keeps an answer.
func (a answerStore) Keep(adapter, model string, slot int, stdin string, s review.StoredAnswer) {
	if err := a.ledger.Put(cache.AnswerKey(a.version, adapter, model, slot, stdin), s); err != nil {
		a.debug.Event(debuglog.EventCache, fmt.Sprintf("answer not kept: %v", err))
	}
}

// answers is the answer store of the run's reviews, nil without a cache.
func (c *runCache) answers() review.Answers {
	if c == nil {
		return nil
	}
	return answerStore{ledger: c.ledger, version: c.run.Version, take: c.lookup, debug: c.debug}
}

// ResultCache is the result cache of a repository, for `agent-gauntlet
// cache`.
type ResultCache struct {
	// Dir is its directory.
	Dir    string
	ledger *ledger.Ledger
	// changes is the changes memo, cleared with the results.
	changes *ledger.Ledger
}

// OpenResultCache finds the result cache of the repository holding dir.
func OpenResultCache(ctx context.Context, dir string) (ResultCache, error) {
	if err := git.Available(); err != nil {
		return ResultCache{}, err
	}
	loc, err := git.Locate(ctx, dir)
	if err != nil {
		return ResultCache{}, fmt.Errorf("find the repository of %s: %w", dir, err)
	}
	d := CacheDir(loc.CommonDir)
	return ResultCache{Dir: d, ledger: ledger.Open(d, 0), changes: ledger.Open(ChangesDir(loc.CommonDir), 0)}, nil
}

// Clear removes every result of the cache (and the changes memo) and
// returns how many results it removed.
func (c ResultCache) Clear() (int, error) {
	if _, err := c.changes.Clear(); err != nil {
		return 0, err
	}
	return c.ledger.Clear()
}

// Stats counts the results of the cache and their size in bytes.
func (c ResultCache) Stats() (int, int64, error) {
	s, err := c.ledger.Stats()
	return s.Records, s.Bytes, err
}

// BaseResults keeps results of check gates on the trees of base commits,
// for base-branch baselines (issue 18): a failing check is run on the merge
// base to tell a pre-existing failure from a new one, and the base does
// not change from one run to the next. A result is keyed as the run keys
// the work tree (version, project, base branch and its commit, the gate's
// definition and cache scope) on the commit's tree, plus what else the
// caller's result depends on (extra: the changed files the check was
// given, ...). Its value is any JSON the caller keeps, a failure included:
// these records are never taken for a run's pass.
type BaseResults struct{ c *runCache }

// baseResults is the run's BaseResults, nil without a cache.
func (e *execution) baseResults() *BaseResults {
	if e.cache == nil {
		return nil
	}
	return &BaseResults{c: e.cache}
}

// key is the key of job's result on commit's tree with extra; ok is false
// when there is none (a review, cache: false, an unknown commit).
func (b *BaseResults) key(ctx context.Context, job gate.Job, commit, extra string) (string, bool) {
	if job.Kind != gate.KindCheck {
		return "", false
	}
	tree, ok := b.tree(ctx, commit)
	if !ok {
		return "", false
	}
	keys, err := b.c.keysOn(ctx, tree, []gate.Job{job}, nil)
	if err != nil || keys[job.ID] == "" {
		return "", false
	}
	return cache.BaseKey(keys[job.ID], extra), true
}

// tree is the tree of commit; ok is false without a cache or when commit
// names no commit.
func (b *BaseResults) tree(ctx context.Context, commit string) (string, bool) {
	if b == nil || b.c == nil {
		return "", false
	}
	objs, err := git.Objects(ctx, b.c.root, commit+"^{tree}")
	if err != nil || len(objs) != 1 || objs[0].Type != "tree" {
		return "", false
	}
	return objs[0].SHA, true
}

// Load decodes the result of job on commit's tree with extra into v; false
// on a miss (and on any doubt: a cache never fails a run).
func (b *BaseResults) Load(ctx context.Context, job gate.Job, commit, extra string, v any) bool {
	k, ok := b.key(ctx, job, commit, extra)
	if !ok {
		return false
	}
	_, ok, why := b.c.ledger.Get(k, v)
	if why != nil {
		b.c.debug.Event(debuglog.EventCache, fmt.Sprintf("base result of %s: %v", job.ID, why))
	}
	return ok
}

// Save keeps v as the result of job on commit's tree with extra; a problem
// is a note in the debug log.
func (b *BaseResults) Save(ctx context.Context, job gate.Job, commit, extra string, v any) {
	k, ok := b.key(ctx, job, commit, extra)
	if !ok {
		return
	}
	if err := b.c.ledger.Put(k, v); err != nil {
		b.c.debug.Event(debuglog.EventCache, fmt.Sprintf("base result of %s not kept: %v", job.ID, err))
	}
}
