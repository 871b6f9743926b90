package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// ending is what the execution state records of a run that ran its gates,
// beyond the repository as the run leaves it.
type ending struct {
	status outcome.GauntletStatus
	// archived is true when the run archives the logs.
	archived bool
	// partial is true when the run left an applicable gate out
	// (planned.leftOut): even a full run's pass is not one of every gate.
	partial bool
	// from is where the verified change set began (changes.from).
	from string
	// reviewed is true when the run's reviews were given the tree of the
	// run's snapshot (prepared.reviewed).
	reviewed bool
	// preExisting are the run's checks that failed as on the base branch;
	// reviewDefs fingerprint the definitions of its review jobs (which tell
	// the next run which review gates judged the snapshot).
	preExisting []string
	reviewDefs  map[string]string
	// unverified names what the run's gates could not verify, and the
	// gates a sparse checkout left out; unanchored, the commits before the
	// change set that no point anchors (changes.unanchored). A pass with
	// unverified starts no interval; a pass marks a point only as
	// marksPoint allows.
	unverified, unanchored string
	// outside are the files outside the work tree the run's cached checks
	// name and what was there (cache.Results.Named).
	outside map[string]string
}

// marksPoint is true when a pass may mark its snapshot verified on its
// branch: it left nothing unverified, but the unanchored commits before
// it when an agent's stop tells them to the person (once: the point it
// marks anchors the next run). A run by hand tells them only to the shell
// it ran in, often the agent's, so it marks nothing over them.
func (e ending) marksPoint(agent bool) bool {
	return e.unverified == "" && (e.unanchored == "" || agent)
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// endPoint is the repository as a run that ran its gates leaves it: its
// branch, HEAD and the snapshot of the work tree (ref) the next run
// verifies the changes since; ok is false when they could not be read.
// snapped is false when ref is not this run's snapshot (see takeEnd).
// key is the snapshot's Key (see git.TreeSnapshot.Key); masked, what
// HEAD holds that the work tree masks (see headMask).
type endPoint struct {
	branch, head, ref, key string
	ok, snapped            bool
	// masked and staged are the paths where HEAD and the index hold
	// content the work tree masks, index what the index stages (see
	// headMask).
	masked, staged []string
	index          string
}

// takeEnd reads the branch and HEAD and takes a snapshot of the work
// tree: the branch and HEAD are asked of git while the snapshot is taken,
// or the snapshot taken before the gates (for verification or reviews) is
// checked and retaken if the gates changed the work tree (finalSnapshot).
func takeEnd(ctx context.Context, s *services, p *project, b *begun, e ending) endPoint {
	p.snap.start()
	hs, err := headState(ctx, p, b)
	if err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
		return endPoint{}
	}
	ref, key, err := finalSnapshot(ctx, p, b, hs, e)
	if err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("no working tree snapshot: %v", err))
		return endPoint{branch: hs.Branch, head: hs.Head, ref: unsnapped(b), ok: true}
	}
	return endPoint{branch: hs.Branch, head: hs.Head, ref: ref, key: key, ok: true, snapped: true}
}

// unsnapped is the snapshot recorded by a run that could not take its
// own: the previous run's, whose changes since hold this run's, else git's
// empty tree, against which everything is changed. Never HEAD: a work tree
// put back to HEAD after a failure would then show no change, and the
// failure would never be verified again.
func unsnapped(b *begun) string {
	if b.prev.WorkingTreeRef != "" {
		return b.prev.WorkingTreeRef
	}
	return git.EmptyTree
}

// writeState writes the execution state of a run that ran its gates and
// ended at ep: the TypeScript tool's fields (the time, branch, commit and
// snapshot) and this tool's, which the book holds too (the start of the
// stop hook's interval and the episode, after book, the verdict book as
// the run left it), the run's number and change scope, and what e says.
func writeState(s *services, p *project, b *begun, e ending, ep endPoint, book *verdicts.Book) {
	if !ep.ok {
		return
	}
	st := state.State{LastRunCompletedAt: s.now(), Branch: ep.branch, Commit: ep.head, WorkingTreeRef: ep.ref,
		LastFullPassAt: book.LastFullPassAt, SessionID: p.opts.SessionID, RunNumber: b.runNumber, Scope: p.scopeName(),
		PreExisting: e.preExisting, ReviewDefinitions: e.reviewDefs}
	if book.Episode != nil {
		st.EpisodeStartRun = book.Episode.FirstRun
	}
	if kept, err := logdir.KeepForeignState(p.logDir); err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v (a file that is not agent-gauntlet's is there)", err))
		return
	} else if kept != "" {
		s.cons.Printf(lineWarning, fmt.Sprintf(msgStateKept, state.Path(p.logDir), kept))
	}
	if err := state.WriteDeleting(p.logDir, st, logdir.Owned); err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("execution state not written: %v", err))
	} else if err := logdir.Note(state.Path(p.logDir), false); err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("execution state not recorded as the gauntlet's: %v", err))
	}
}

// recordedBase is the base commit a snapshot records, "" when the base
// branch names none.
func recordedBase(hs git.HeadState) string {
	if hs.BaseErr != nil {
		return ""
	}
	return hs.Base
}

// finalSnapshot returns the snapshot commit, on HEAD with the base and
// e.from recorded, of the work tree the run's reviews were given when they
// were given the run's snapshot (e.reviewed): what the gates changed in
// the work tree since (a formatter, an edit during the run) is then among
// the next run's changes since the snapshot, so no review that judged it
// ever misses it. Otherwise it is the work tree as the gates left it: the
// run's snapshot when nothing moved since it was taken, else taken again.
// key is the Key of the snapshot the commit holds the tree of.
func finalSnapshot(ctx context.Context, p *project, b *begun, hs git.HeadState, e ending) (ref, key string, err error) {
	ts, err := p.snap.taken.get()
	if err != nil {
		return "", "", err
	}
	if !e.reviewed {
		changed, err := p.snap.treeMoved(ctx)
		if err != nil {
			return "", "", err
		}
		if changed {
			if err := ts.tree.Retake(ctx); err != nil {
				return "", "", err
			}
		}
	}
	if ref := sameSnapshot(b, ts.tree.Tree, hs, e.from); ref != "" {
		return ref, ts.tree.Key(), nil
	}
	c, err := git.CommitTreeOn(ctx, p.root, ts.tree.Tree, recordedBase(hs), e.from, hs.Head)
	if err != nil {
		return "", "", fmt.Errorf("snapshot commit: %w", err)
	}
	return c, ts.tree.Key(), nil
}

// headState is the branch, HEAD and base commit for the execution state:
// asked of git, or, when no gate ran (every pass from the cache, a run of
// milliseconds), what the run resolved at its start.
func headState(ctx context.Context, p *project, b *begun) (git.HeadState, error) {
	if p.snap.noGateRan() && p.loc.started.Load() && b.refs.started.Load() {
		loc, lerr := p.loc.get()
		refs, rerr := b.refs.get()
		if lerr == nil && rerr == nil && refs.Head != "" {
			return git.HeadState{Branch: loc.Branch, Head: refs.Head, Base: refs.Base, BaseErr: refs.BaseErr}, nil
		}
	}
	return git.ReadHeadState(ctx, p.root, p.base)
}

// sameSnapshot is the previous run's snapshot commit when it is the one
// this run would write (the same tree, on the same HEAD, recording the
// same base and origin), "" otherwise.
func sameSnapshot(b *begun, tree string, hs git.HeadState, from string) string {
	prev := b.prev.WorkingTreeRef
	if prev == "" || !b.refs.started.Load() {
		return ""
	}
	refs, err := b.refs.get()
	if err != nil || refs.SnapshotTree != tree || refs.SnapshotParent != hs.Head || hs.Head == "" ||
		refs.SnapshotBase != recordedBase(hs) || refs.SnapshotSince != from {
		return ""
	}
	return prev
}
