package cache

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// The result cache. A gate that passed is recorded in a ledger under the
// git common directory, keyed by everything its result depends on (Key);
// a later run whose key for the gate is the same takes the pass from the
// ledger instead of running the gate. Reviews also keep their reviewers'
// answers there, by the exact question (answers.go), and failed checks
// with baseline: true their results on base commits (base.go).
//
// Safety rules: a verdict is only ever taken for the exact key it was
// recorded under; anything that makes a key uncertain (no snapshot, a work
// tree the snapshot cannot read whole, no version, a path that cannot be
// looked up) leaves the gate uncached; only passes and pre-existing
// failures are recorded, and only when the work tree the gates ran on is
// still the one the keys were computed from (a gate that changed it proves
// nothing about either tree).

// resultsKind is the store kind (a directory of store.Dir in the git
// common directory) of the result cache.
const resultsKind = "cache"

// Dir is the directory of the result cache of the repository whose git
// common directory is commonDir.
func Dir(commonDir string) string { return filepath.Join(commonDir, store.Dir, resultsKind) }

// Results is the result cache as one run uses it.
type Results struct {
	ledger *ledger.Ledger
	run    Run
	// prefix is the project root below the top level ("" or ending in
	// "/"): tree paths are looked up under it.
	prefix string
	// lookup is false with --no-cache: results are recorded, not taken.
	lookup bool
	// keys are the keys of the run's jobs that have one, by job id
	// (ComputeKeys).
	keys map[string]string
	// root is the project root (git runs there); debug takes the notes of
	// what the cache did not do.
	root  string
	debug *debuglog.Log
	// uncached says, by job id, why a gate has no key (keysOn); getenv
	// reads the environment (nil: os.LookupEnv).
	uncached map[string]string
	getenv   func(string) (string, bool)
	// outside are, by job id, the paths outside the work tree its key
	// holds and what was there (checked again before a pass is recorded);
	// named are all those the keys read, by path (see Named).
	outside map[string][]Object
	named   map[string]string
}

// Open returns the result cache of a run of the project at root, which
// sits in its repository at loc, keyed by run (its Project is loc's
// prefix), bounded by cfg's cache.max_size_mb; lookup is false with
// --no-cache. The work trees of submodules and of every other repository
// inside the work tree are in the keys (git.TreeSnapshot.KeyTree).
func Open(root string, loc git.Location, run Run, cfg *config.Config, lookup bool, debug *debuglog.Log) *Results {
	run.Project = loc.Prefix
	return &Results{
		ledger: ledger.Open(loc.CommonDir, filepath.Join(store.Dir, resultsKind), int64(cfg.Cache.MaxSizeMB*(1<<20))),
		run:    run,
		prefix: loc.Prefix,
		lookup: lookup,
		keys:   map[string]string{},
		root:   root,
		debug:  debug,
	}
}

// scopeOf is the cache scope of job, "" when the gate stays out of the
// cache.
func scopeOf(job gate.Job) string {
	switch job.CacheSetting() {
	case config.CacheOff:
		return ""
	case config.CacheEntryPoint:
		return ScopeEntryPoint
	}
	return ScopeTree
}

// WantsDiff reports whether a job of jobs that reads the diff (a review)
// is cached: its key needs the inputs of the diff (ReviewDiff).
func WantsDiff(jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.ReadsDiff() && scopeOf(j) != "" {
			return true
		}
	}
	return false
}

// ComputeKeys computes the keys of jobs on what the run's snapshot says a
// gate can see (tree: its KeyTree, the whole work tree as it is on disk,
// the repositories inside it included; one git process for every path
// they need), its empty directories (empty: the snapshot's EmptyDirs)
// and where its links lead (ends: the snapshot's LinkEnds),
// with diff the inputs of the reviews' diff (nil: reviews get no key); a
// job whose key cannot be computed has none, and stays out of the cache.
// An error (a note in the debug log) leaves every job without a key.
func (c *Results) ComputeKeys(ctx context.Context, tree, empty string, ends []git.LinkEnd, jobs []gate.Job, diff *Diff) {
	keys, err := c.keysOn(ctx, tree, empty, ends, jobs, diff)
	if err != nil {
		c.debug.Event(debuglog.EventCache, fmt.Sprintf("no keys: %v", err))
		return
	}
	c.keys = keys
}

// scoped is what the key of a job keyed by its entry point holds of the
// work tree: the paths it reads (Paths) and what links lead to from them.
type scoped struct {
	paths []string
	sight Sight
}

// keysOn computes the keys of jobs for the top-level tree and where its
// links lead (ends, see SightOf), with diff the diff inputs of review
// jobs (nil: reviews get no key). A gate keyed by the tree is keyed by
// the whole of it, not only the project's directory: a check reads files
// outside it too (a workspace's go.work, a lock file, shared
// configuration). One keyed by its entry point is keyed by the paths it
// reads and every path of the work tree a link among them leads to, and
// by where each such link leads. Either is keyed by what is at each path
// outside the work tree its command names (outsideReader); a gate whose
// command names a path the scan cannot resolve, or one outside that no
// key can hold, gets no key, and Uncached says why (for a gate keyed by
// its entry point; one keyed by the tree keeps the outside paths the scan
// resolved). A check's key also holds the programs its command names, as
// found on the PATH it runs with (ProgramsIdentity).
func (c *Results) keysOn(ctx context.Context, tree, empty string, ends []git.LinkEnd, jobs []gate.Job, diff *Diff) (map[string]string, error) {
	env := CheckEnv(c.lookupEnv(), c.run.BaseBranch)
	paths := map[string]bool{}
	wants := map[string]scoped{}
	outside := map[string][]Object{}
	out := newOutsideReader()
	c.uncached = map[string]string{}
	for _, j := range jobs {
		if scopeOf(j) == "" {
			continue
		}
		ps, why := Paths(j, env)
		if scopeOf(j) == ScopeTree {
			// The whole work tree is in the key: a path the scan cannot
			// resolve is keyed there when it is in the tree, and one it
			// builds outside is read without being named (docs/cache.md).
			why = ""
		}
		if why == "" {
			outside[j.ID], why = c.outsideOf(ps, out)
		}
		if why != "" {
			c.uncached[j.ID] = why
			continue
		}
		if scopeOf(j) != ScopeEntryPoint || slices.ContainsFunc(ps, func(p string) bool { return strings.ContainsAny(p, "\n\x00") }) {
			continue
		}
		var top []string
		for _, p := range ps {
			if pl := c.place(p); pl.inTree {
				top = append(top, pl.tree)
				paths[pl.tree] = true
			}
		}
		sight := SightOf(top, ends)
		for _, p := range sight.Reached {
			paths[p] = true
		}
		wants[j.ID] = scoped{paths: ps, sight: sight}
	}
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	ids := map[string]git.TreeEntry{}
	if len(list) > 0 {
		var err error
		if ids, err = git.TreeEntries(ctx, c.root, tree, list); err != nil {
			return nil, err
		}
	}
	whole := SightOf([]string{""}, ends)
	keys := map[string]string{}
	sums := changedSums{}
	pathVar, _ := c.lookupEnv()("PATH")
	programs := map[string]string{}
	for _, j := range jobs {
		s := scopeOf(j)
		if s == "" || c.uncached[j.ID] != "" {
			continue
		}
		g := Gate{Job: j, Scope: s, ChangedSum: sums.of(j.Changed), Reach: whole.Ends, Outside: outside[j.ID], Empty: empty}
		if j.Kind == gate.KindCheck && j.Check != nil {
			g.Programs = programsIdentity(ProgramWords([]string{j.Check.Command}), pathVar, programs)
		}
		if j.ReadsDiff() {
			if diff == nil {
				continue
			}
			d := *diff
			g.Diff = &d
		}
		if w, ok := wants[j.ID]; ok {
			for _, p := range w.paths {
				pl := c.place(p)
				switch {
				case !pl.inTree:
				case path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../"):
					g.Objects = append(g.Objects, Object{Path: reachedPrefix + pl.tree, ID: ids[pl.tree].ID, Mode: ids[pl.tree].Mode})
				default:
					g.Objects = append(g.Objects, Object{Path: p, ID: ids[pl.tree].ID, Mode: ids[pl.tree].Mode})
				}
			}
			for _, p := range w.sight.Reached {
				g.Objects = append(g.Objects, Object{Path: reachedPrefix + p, ID: ids[p].ID, Mode: ids[p].Mode})
			}
			g.Reach = w.sight.Ends
		} else {
			g.Scope, g.Tree = ScopeTree, tree
		}
		k, err := Key(c.run, g)
		if err != nil {
			c.debug.Event(debuglog.EventCache, fmt.Sprintf("%s: %v", j.ID, err))
			continue
		}
		keys[j.ID] = k
	}
	c.outside, c.named = outside, out.held()
	return keys, nil
}

// outsideOf are the identities of the paths among ps (from Paths) that lie
// outside the work tree, read by out; or why one cannot be held.
func (c *Results) outsideOf(ps []string, out *outsideReader) ([]Object, string) {
	var objs []Object
	for _, p := range ps {
		pl := c.place(p)
		if pl.inTree {
			continue
		}
		id, why := out.id(pl.abs)
		if why != "" {
			return nil, why
		}
		objs = append(objs, Object{Path: pl.abs, ID: id})
	}
	return objs, ""
}

// outsideStill reports whether what is at each path outside the work tree
// that job names is still what its key holds (read again by r).
func (c *Results) outsideStill(job string, r *outsideReader) bool {
	for _, o := range c.outside[job] {
		if id, why := r.id(o.Path); why != "" || id != o.ID {
			return false
		}
	}
	return true
}

// Named are the paths outside the work tree that the commands of the
// run's cached checks name (absolute), each with what was there as their
// keys hold it, "" for one no key can hold (its gate is uncached): what a
// full pass records, for NamedChanged to tell the interval. Nil before
// ComputeKeys, or for a nil cache.
func (c *Results) Named() map[string]string {
	if c == nil {
		return nil
	}
	return c.named
}

// NamedChanged are the paths of named (Named of an earlier run) where
// what is there now is not what it held, read again within the bounds a
// run reads them in, sorted: one that no key could hold then, or that
// cannot be read or held now, counts as changed.
func NamedChanged(named map[string]string) []string {
	var changed []string
	r := newOutsideReader()
	for _, p := range slices.Sorted(maps.Keys(named)) {
		if id, why := r.id(p); named[p] == "" || why != "" || id != named[p] {
			changed = append(changed, p)
		}
	}
	return changed
}

// lookupEnv is how the cache reads the environment (os.LookupEnv but in
// tests).
func (c *Results) lookupEnv() func(string) (string, bool) {
	if c.getenv != nil {
		return c.getenv
	}
	return os.LookupEnv
}

// Uncached are the gates of the run that have no key because of what
// their commands name (by job id): why each is not cached.
func (c *Results) Uncached() map[string]string {
	if c == nil {
		return nil
	}
	return c.uncached
}

// reachedPrefix marks, in a key's Objects, a path a link leads to
// (relative to the top level of the work tree), apart from the paths the
// gate reads (relative to the project root).
const reachedPrefix = ":/"

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
		return ListFingerprint(list)
	}
	id := sliceID{&list[0], len(list)}
	if sum, ok := s[id]; ok {
		return sum
	}
	sum := ListFingerprint(list)
	s[id] = sum
	return sum
}

// ReviewDiff is what the diff of a run's reviews is computed from, nil
// when it cannot be pinned down (reviews are not cached then): the run's
// whole change scope full (a verification run's reviews are keyed by the
// scope they verify), refs as the run resolved them and the agent's skip
// decisions the reviews apply.
func ReviewDiff(ctx context.Context, root string, full gate.DiffSpec, refs git.Refs, skips []gate.Skip) *Diff {
	d := &Diff{Mode: full.Mode, Skips: SkipsFingerprint(skips)}
	switch full.Mode {
	case gate.DiffLocal:
		if refs.BaseErr != nil || refs.Head == "" {
			return nil
		}
		mb, err := git.MergeBase(ctx, root, refs.Base, refs.Head)
		if err != nil || mb == "" {
			return nil
		}
		d.MergeBase = mb
	case gate.DiffUncommitted:
		d.Head = refs.Head
	case gate.DiffCommit:
		sha, err := git.ResolveCommit(ctx, root, full.Commit)
		if err != nil || sha == "" {
			return nil
		}
		d.Commit = sha
	default:
		return nil // CI: a fresh clone has no cache to speak of
	}
	return d
}

// Hit is the verdict the cache holds for a job of a run.
type Hit struct {
	// Result is the job's result; Result.Cached names the run that proved it.
	Result gate.Result
	// Proof is that run's record.
	Proof Proof
}

// Take returns the verdicts the cache holds for jobs (by index in jobs),
// each as a result at now, and the jobs left to run; with --no-cache, or
// before ComputeKeys, every job is left to run. A nil cache holds none. A
// pre-existing failure is taken only against the run's base commit for
// baselines (base: see Proof.Usable).
func (c *Results) Take(jobs []gate.Job, now time.Time, base BaseQuestion) (map[int]Hit, []gate.Job) {
	if c == nil || !c.lookup || len(c.keys) == 0 {
		return nil, jobs
	}
	hits := map[int]Hit{}
	var rest []gate.Job
	for i, j := range jobs {
		key, ok := c.keys[j.ID]
		if !ok {
			rest = append(rest, j)
			continue
		}
		var p Proof
		stored, ok, why := c.ledger.Get(key, &p)
		if why != nil {
			c.debug.Event(debuglog.EventCache, fmt.Sprintf("%s: %v", j.ID, why))
		}
		if !ok || !p.Usable(j, base.Question, base.Commit) {
			rest = append(rest, j)
			continue
		}
		hits[i] = Hit{Result: p.Result(j, stored, now), Proof: p}
	}
	return hits, rest
}

// BaseQuestion is how a run finds its base commit for baselines: Question
// identifies what finds it (the change scope and the commits it starts
// from, "" when unknown: see Proof.BaselineFor), Commit asks git (called
// only when a pre-existing failure's question differs).
type BaseQuestion struct {
	Question string
	Commit   func() string
}

// Merge puts the results taken from the cache (by index in jobs) and those
// of the jobs that ran (in the order of ran) back in job order.
func Merge(jobs []gate.Job, hits map[int]gate.Result, ran []gate.Result) []gate.Result {
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

// Record keeps the verdicts among results of the gates that ran (passes,
// and failures the base branch has too: Recordable), run number run of
// the project at root whose console log is consoleLog, a pre-existing one
// with the question that found its base commit (baselineFor), when moved
// (asked only then) says the work tree is still the one the keys were
// computed from, and what is at the paths outside the work tree a gate's
// command names is still what its key holds; then it bounds the ledger. A
// nil cache records nothing.
func (c *Results) Record(ctx context.Context, results []gate.Result, run int, consoleLog, baselineFor string, moved func(context.Context) (bool, error)) {
	if c == nil || len(c.keys) == 0 {
		return
	}
	var proofs []Proof
	for _, r := range results {
		if _, ok := c.keys[r.JobID]; ok && Recordable(r) {
			proofs = append(proofs, proofOf(r, run, c.root, consoleLog, baselineFor))
		}
	}
	if len(proofs) == 0 {
		return
	}
	if m, err := moved(ctx); err != nil || m {
		c.debug.Event(debuglog.EventCache, fmt.Sprintf("nothing recorded: the work tree changed during the gates (%v)", err))
		return
	}
	reread := newOutsideReader()
	for _, p := range proofs {
		if !c.outsideStill(p.Job, reread) {
			c.debug.Event(debuglog.EventCache, p.Job+" not recorded: a path outside the work tree it names changed during the gates")
			continue
		}
		if err := c.ledger.Put(c.keys[p.Job], p); err != nil {
			c.debug.Event(debuglog.EventCache, fmt.Sprintf("%s not recorded: %v", p.Job, err))
		}
	}
	if _, err := c.ledger.Sweep(); err != nil {
		c.debug.Event(debuglog.EventCache, err.Error())
	}
}

// proofOf is the record of a result r (see Recordable) of run number run
// of the project at root; a pre-existing failure names the question that
// found its base commit (baselineFor).
func proofOf(r gate.Result, run int, root, consoleLog, baselineFor string) Proof {
	p := Proof{Job: r.JobID, Status: r.Status, Message: r.Message, Duration: r.Duration, Baseline: r.Baseline,
		Run: run, Root: root, ConsoleLog: consoleLog, Skipped: r.Skipped}
	if r.Baseline != nil {
		p.BaselineFor = baselineFor
	}
	for _, s := range r.Slots {
		p.Slots = append(p.Slots, Slot{Adapter: s.Adapter, Index: s.Index, Message: s.Message})
	}
	for _, n := range r.NotShown {
		p.NotShown = append(p.NotShown, Unshown{Path: n.Path, Why: n.Why})
	}
	return p
}

// Store is the result cache of a repository, for `agent-gauntlet cache`.
type Store struct {
	// Dir is its directory.
	Dir    string
	ledger *ledger.Ledger
	// changes and ancestry are the memos, cleared with the results.
	changes, ancestry *ledger.Ledger
}

// OpenStore finds the result cache of the repository holding dir.
func OpenStore(ctx context.Context, dir string) (Store, error) {
	if err := git.Available(); err != nil {
		return Store{}, err
	}
	loc, err := git.Locate(ctx, dir)
	if err != nil {
		return Store{}, fmt.Errorf("find the repository of %s: %w", dir, err)
	}
	c := loc.CommonDir
	return Store{Dir: Dir(c), ledger: ledger.Open(c, filepath.Join(store.Dir, resultsKind), 0),
		changes:  ledger.Open(c, filepath.Join(store.Dir, changesKind), 0),
		ancestry: ledger.Open(c, filepath.Join(store.Dir, ancestryKind), 0)}, nil
}

// Clear removes every result of the cache (and the memos) and returns how
// many results it removed.
func (s Store) Clear() (int, error) {
	for _, m := range []*ledger.Ledger{s.changes, s.ancestry} {
		if _, err := m.Clear(); err != nil {
			return 0, err
		}
	}
	return s.ledger.Clear()
}

// Stats counts the results of the cache and their size in bytes.
func (s Store) Stats() (int, int64, error) {
	st, err := s.ledger.Stats()
	return st.Records, st.Bytes, err
}
