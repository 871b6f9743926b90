package stophook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// Judgment is what a stop whose session is in a directory judges: the
// project, the configuration in force there, and the trusted projects in
// reach it leaves unjudged. The stop hook and the commands a person runs
// to see or reset what it judges (status, clean) find it the same way
// (Judge): one answer to "which project, with which gates, from here".
type Judgment struct {
	// Discovery is the project judged (Root, "" for none), the untrusted
	// configuration passed over for it, and the trusted projects left
	// unjudged (trust.Discover).
	trust.Discovery
	// Trust is how the work tree's configuration stands to the trusted
	// one, nil outside a git work tree.
	Trust *trust.Status
	// Source is where the configuration in force comes from: the trusted
	// record, HEAD's commit, or none (the work tree's).
	Source trust.Source
	// Project is the configuration in force in Root; nil when Err.
	Project *config.Project
	// Err is why the configuration in force does not open: none at all
	// (config.ErrNotFound), a trusted one without gates (also
	// config.ErrNotFound, its text says so), one that does not load.
	Err error
}

// Judge finds what a stop whose session is in dir judges (with no input
// directory below it), without running a gate and without writing
// anything: the project (trust.Discover, a project's pending failures read
// as of now, then the projects stops from dir judged in other
// repositories, recall, whose per-user record getenv locates) and the
// configuration in force there (the trusted one, else the work tree's).
// Errors are git's.
func Judge(ctx context.Context, dir string, getenv func(string) string, now time.Time) (Judgment, error) {
	found, ok, err := discover(ctx, dir, "", now)
	if err != nil {
		return Judgment{}, fmt.Errorf("find the project of %s: %w", dir, err)
	}
	found, ok, _ = recall(verdicts.StateHome(getenv), dir, found, ok)
	j := Judgment{Discovery: found}
	if !ok {
		return j, nil
	}
	f := openInForce(ctx, found.Root)
	if f.inspectErr != nil {
		return j, fmt.Errorf("read the trusted configuration of %s: %w", found.Root, f.inspectErr)
	}
	j.Trust, j.Source, j.Project, j.Err = f.st, f.t.Source, f.project, f.err
	return j, nil
}

// Pending are the gates a stop that judges j lists as pending (its
// answer's "pending"): the judged project's, by its configuration in force
// (the verdict book alone when that does not load), then each unjudged
// trusted project's as "<project>: <gate>".
func (j Judgment) Pending(ctx context.Context, now time.Time) []string {
	var view pendingView
	if j.Root != "" {
		cfg, _ := gatesOrBook(j.Root, j.Project)
		view = pendingFailures(ctx, cfg, now)
	}
	return pendingList(view, unjudgedPending(ctx, j.Unjudged, nil, now))
}

// discover is trust.Discover for a stop whose session is in dir and whose
// input's directory below it is inner ("" for none), a trusted project's
// pending failures read from its verdict book as of now.
func discover(ctx context.Context, dir, inner string, now time.Time) (trust.Discovery, bool, error) {
	found, ok, err := trust.Discover(ctx, dir, inner, func(k trust.Known) bool {
		return len(pendingOfRecord(ctx, k, now)) > 0
	})
	if err != nil {
		return found, ok, err
	}
	return withBooks(ctx, found, dir, now), ok, nil
}

// withBooks adds to found's unjudged projects those of dir's repository
// whose verdict books hold gates failing or dropped unverified and that
// the stop neither judges nor names already: at or below dir, holding
// dir, or nested in the project judged. Their records and configurations
// may be gone (.gauntlet/ deleted and committed, its record deleted): the
// book, the gauntlet's own account of what failed, is named all the same.
func withBooks(ctx context.Context, found trust.Discovery, dir string, now time.Time) trust.Discovery {
	d, in := gitdir.Find(dir)
	if !in || place.MovedByEnv() {
		return found
	}
	worktree := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir}.Worktree()
	var skip []verdicts.Key
	if found.Root != "" {
		if p, in := placeOf(d, found.Root); in {
			skip = append(skip, verdicts.KeyOf(p))
		}
	}
	for _, project := range verdicts.Projects(d.CommonDir, worktree, skip...) {
		k := trust.KnownAt(d, project)
		root := k.Root()
		named := root == found.Root || slices.ContainsFunc(found.Unjudged, func(u trust.Known) bool { return u.Place == k.Place })
		near := within(root, dir) || within(dir, root) || found.Root != "" && within(root, found.Root)
		if named || !near || len(pendingOfRecord(ctx, k, now)) == 0 {
			continue
		}
		found.Unjudged = append(found.Unjudged, k)
	}
	return found
}

// inForce is the configuration in force in a project, as openInForce
// finds it.
type inForce struct {
	// st is how the work tree's configuration stands to the trusted one,
	// nil outside a git work tree; t the trusted configuration.
	st *trust.Status
	t  trust.Trusted
	// project is the configuration in force, nil when err.
	project *config.Project
	err     error
	// inspectErr is git failing to tell what is trusted.
	inspectErr error
}

// openInForce opens the configuration in force in the project at root:
// the trusted one (trust.Inspect: its record, else HEAD's commit), else
// the work tree's (no record and none committed, or no git work tree).
// It writes nothing.
func openInForce(ctx context.Context, root string) inForce {
	f := inForce{t: trust.Trusted{Source: trust.SourceNone}}
	st, t, err := trust.Inspect(ctx, root)
	switch {
	case errors.Is(err, place.ErrNoRepository):
	case err != nil:
		f.inspectErr = err
		return f
	default:
		f.st, f.t = &st, t
	}
	if f.t.Source == trust.SourceNone {
		f.project, f.err = config.OpenProject(root)
		return f
	}
	f.project, f.err = config.OpenFiles(root, t.Files)
	if errors.Is(f.err, config.ErrNotFound) {
		f.err = fmt.Errorf("the trusted configuration has no gates (%s): %w", trustedWhen(st), f.err)
	} else if f.err != nil {
		f.err = fmt.Errorf("the trusted configuration does not load: %w", f.err)
	}
	return f
}

// gatesOrBook is the configuration whose gates the pending failures of
// the project at root are read by: p's gates, else (none loads) the
// default log directory, where the verdict book still names every gate it
// holds failing; ok is false in that case.
func gatesOrBook(root string, p *config.Project) (cfg *config.Config, ok bool) {
	if p != nil {
		if cfg, err := p.Gates(); err == nil {
			return cfg, true
		}
	}
	return &config.Config{Root: root, LogDir: config.DefaultLogDir}, false
}

// pendingList is the pending field of an answer: the judged project's
// gates (view), then the unjudged projects'.
func pendingList(view pendingView, others unjudgedView) []string {
	return append(view.all(), others.pending...)
}
