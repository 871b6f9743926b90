package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// SincePass is what changed since the last full pass, as the stop hook's
// interval tells it.
type SincePass struct {
	// Known is false when the book does not say what the pass verified
	// (no snapshot then, an older version's book, its snapshot gone).
	Known bool
	// At is when the pass ended.
	At time.Time
	// Paths are the paths of the work tree that differ from the tree the
	// pass judged (relative to the repository's top level, sorted).
	Paths []string
	// HeadMoved, BaseMoved and ConfigChanged say that HEAD, the base
	// branch or the configuration in force are not those of the pass.
	HeadMoved, BaseMoved, ConfigChanged bool
	// KeyMoved says that what the gates can read in the work tree is not
	// what the pass verified (the snapshot's Key, which the result cache
	// keys too); Paths and ReachMoved then say what, when they can.
	// ReachMoved says that a link leads to content the snapshot does not
	// hold (outside the work tree, ignored) that changed. Unheld says why
	// the work tree as it is cannot be compared whole, "" when it can.
	KeyMoved, ReachMoved bool
	Unheld               string
	// Reaching are, when ReachMoved, the links of the work tree that lead
	// to what the snapshot does not hold now (git.TreeSnapshot.ReachLinks):
	// the one whose target changed is among them, unless it no longer
	// leads there.
	Reaching []string
	// Outside are the files outside the work tree that the checks'
	// commands name whose content is not what the pass's keys held
	// (verdicts.FullPass.Outside; absolute, sorted).
	Outside []string
	// Uncached are the gates of the configuration the result cache never
	// keeps (by job id, sorted): those marked cache: false, which read what
	// no snapshot holds (ignored files, git's history, the world outside),
	// and the checks keyed by their entry point whose command names what
	// the scan cannot resolve (cache.NamedPaths). Nothing tells that their
	// input is what the pass verified, and they did not run since.
	Uncached []string
	// Unanchored names the commits the pass could not look at and marked
	// no point over (verdicts.FullPass.Unanchored), "" for none: not
	// verified whatever changed since.
	Unanchored string
}

// Unchanged reports whether everything the gates can read in the work
// tree and the files outside it the checks name, HEAD, the base branch and the configuration are known to be those
// the last full pass verified: never while a gate the result cache never
// keeps is configured (Uncached), which it would run again too.
func (s SincePass) Unchanged() bool {
	return s.Known && !s.KeyMoved && len(s.Paths) == 0 && len(s.Outside) == 0 && !s.HeadMoved && !s.BaseMoved &&
		!s.ConfigChanged && len(s.Uncached) == 0
}

// SinceFullPass compares the project of cfg (loaded with its gates; base
// branch base) as it is with what its last full pass verified: the work
// tree by the same identity the result cache keys (git.TreeSnapshot.Key),
// so that nothing a gate can read changes unseen. The work tree is
// snapshotted in the kept index the runs use, which costs about one `git
// status` when little changed. An error, or a book that does not say
// (an older version's, a pass whose work tree could not be held whole), is
// Known false.
func SinceFullPass(ctx context.Context, cfg *config.Config, base string) (SincePass, error) {
	book, err := StoredBook(ctx, cfg.Root)
	if err != nil || book == nil || book.FullPass == nil || book.LastFullPassAt.IsZero() || book.FullPass.Key == "" {
		return SincePass{}, err
	}
	fp := book.FullPass
	refs, err := git.ResolveRefs(ctx, cfg.Root, base, fp.Ref)
	if err != nil || refs.SnapshotTree == "" {
		return SincePass{}, err
	}
	var excludes []string
	if rel := scope.InsideRel(cfg.Root, cfg.LogDirPath()); rel != "" {
		excludes = append(excludes, rel)
	}
	ts, err := git.NewTreeSnapshot(ctx, cfg.Root, excludes...)
	if err != nil {
		return SincePass{}, err
	}
	defer ts.Close()
	out := SincePass{Known: true, At: book.LastFullPassAt, Unanchored: fp.Unanchored,
		HeadMoved:     refs.Head != refs.SnapshotParent,
		BaseMoved:     refs.BaseErr == nil && refs.Base != refs.SnapshotBase,
		ConfigChanged: fp.Config == "" || fp.Config != ConfigIdentity(cfg),
		Uncached:      uncachedGates(cfg, base)}
	work, err := workSince(ctx, cfg.Root, refs.SnapshotTree, fp.Key, fp.Outside, ts)
	if err != nil {
		return SincePass{}, err
	}
	out.Paths, out.KeyMoved, out.ReachMoved, out.Unheld, out.Reaching, out.Outside =
		work.Paths, work.KeyMoved, work.ReachMoved, work.Unheld, work.Reaching, work.Outside
	return out, nil
}

// uncachedGates are the gates of cfg's entry points the result cache
// never keeps (SincePass.Uncached; base is the base branch a check's
// environment names), by job id, sorted.
func uncachedGates(cfg *config.Config, base string) []string {
	env := cache.CheckEnv(os.LookupEnv, base)
	var ids []string
	for _, ep := range cfg.EntryPoints {
		for _, name := range ep.Checks {
			c := cfg.Checks[name]
			if c == nil {
				continue
			}
			if _, why := cache.NamedPaths(c.Command, c.WorkingDirectory, env); c.Cache == config.CacheOff || c.Cache == config.CacheEntryPoint && why != "" {
				ids = append(ids, gate.CheckID(ep.Path, name))
			}
		}
		for _, name := range ep.Reviews {
			if r := cfg.Reviews[name]; r != nil && r.Cache == config.CacheOff {
				ids = append(ids, gate.ReviewID(ep.Path, name))
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// workChanges is what differs between the work tree a run judged and a
// snapshot of it as it is now, by the one identity of what the gates can
// read (git.TreeSnapshot.Key: the result cache's key, the repositories
// inside the work tree by file, what links lead to outside it, a
// same-second edit the kept index looks at again). Every comparison of
// "what changed since run N" is made with it: the interval's since the
// last full pass, the retry limit's since the last run of the gates.
type workChanges struct {
	// Paths are the paths that differ (relative to the top level, sorted).
	Paths []string
	// KeyMoved says that what the gates can read is not what was judged;
	// Paths and ReachMoved then say what, when they can.
	KeyMoved bool
	// ReachMoved says that a link leads to content the snapshot does not
	// hold (outside the work tree, ignored) that changed; Reaching are
	// then the links that lead there (git.TreeSnapshot.ReachLinks).
	ReachMoved bool
	Reaching   []string
	// Unheld says why the work tree as it is cannot be compared whole, ""
	// when it can.
	Unheld string
	// Outside are the files outside the work tree the checks name whose
	// content is not what the run's keys held (cache.NamedChanged).
	Outside []string
}

// Changed reports whether anything the gates can read differs, or the
// work tree cannot be compared whole.
func (w workChanges) Changed() bool {
	return w.KeyMoved || len(w.Paths) > 0 || w.Unheld != "" || len(w.Outside) > 0
}

// workSince compares the snapshot ts with the work tree a run judged:
// its snapshot tree (or commit) tree and its Key was; and the files
// outside the work tree its checks named with what was there then
// (outside: cache.Results.Named, read again without git). Without a Key
// (an older version's record, one that could not be told) only the trees
// are compared, and what the work tree cannot hold whole is said.
func workSince(ctx context.Context, root, tree, was string, outside map[string]string, ts *git.TreeSnapshot) (workChanges, error) {
	moved := cache.NamedChanged(outside)
	if was == "" {
		paths, err := git.TreePaths(ctx, root, tree, ts.Tree)
		return workChanges{Paths: paths, KeyMoved: len(paths) > 0, Unheld: ts.Uncertain, Outside: moved}, err
	}
	if ts.Key() == was {
		return workChanges{Outside: moved}, nil
	}
	w := workChanges{KeyMoved: true, Unheld: ts.Uncertain, Outside: moved}
	var err error
	w.Paths, w.ReachMoved, err = keyChanges(ctx, root, was, ts, tree)
	if err != nil {
		return workChanges{}, err
	}
	if w.ReachMoved {
		w.Reaching = ts.ReachLinks()
	}
	return w, nil
}

// keyChanges names what differs between the Key a pass recorded (was) and
// the snapshot ts: the paths of the two key trees that differ (of the two
// snapshot trees, from tree, when a key tree cannot be read: git may have
// pruned the pass's), and whether what the links lead to moved.
func keyChanges(ctx context.Context, root, was string, ts *git.TreeSnapshot, tree string) ([]string, bool, error) {
	wasTree, wasReach := git.SplitKey(was)
	if ts.KeyTree != "" && ts.KeyTree != wasTree {
		if paths, err := git.TreePaths(ctx, root, wasTree, ts.KeyTree); err == nil {
			return paths, ts.Reach != wasReach, nil
		}
	}
	reachMoved := ts.KeyTree != "" && ts.Reach != wasReach
	if ts.Tree == tree {
		return nil, reachMoved, nil
	}
	paths, err := git.TreePaths(ctx, root, tree, ts.Tree)
	return paths, reachMoved, err
}

// ConfigIdentity identifies a configuration loaded with its gates: the
// same settings and gates give the same identity, wherever the project
// is reached from ("" when it cannot be told).
func ConfigIdentity(cfg *config.Config) string {
	if cfg == nil {
		return ""
	}
	c := *cfg
	c.Root, c.Warnings = "", nil
	data, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}
