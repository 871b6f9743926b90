package run

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// snapshot is a run's snapshot of the work tree (without the log
// directory) in a kept index, taken at most once: before the gates when
// something needs it then (a review's diff, a cache key, a verification
// run's changes), else after them, for the execution state.
type snapshot struct {
	taken *future[takenSnapshot]
	// gatesDone is set once every gate has ended; gatesRan tells whether
	// any gate ran (all cached: none).
	gatesDone, gatesRan atomic.Bool
	moved               struct {
		once    sync.Once
		changed bool
		err     error
		// checked is true when git was asked (not inferred).
		checked bool
	}
}

// takenSnapshot is the snapshot as taken.
type takenSnapshot struct {
	tree *git.TreeSnapshot
	// afterGates is true when it was taken after every gate had ended: it
	// then is the work tree the gates left, no check needed.
	afterGates bool
}

// newSnapshot is the snapshot of the work tree of the project at root,
// the log directory (logRel, "" for none inside the root) left out; it is
// taken under ctx when first asked for, and each path it had to leave out
// gets a note on cons.
func newSnapshot(ctx context.Context, root, logRel string, cons *console.Console) *snapshot {
	s := &snapshot{}
	var excludes []string
	if logRel != "" {
		excludes = []string{logRel}
	}
	s.taken = lazy(func() (takenSnapshot, error) {
		after := s.gatesDone.Load()
		ts, err := git.NewTreeSnapshot(ctx, root, excludes...)
		if err != nil {
			return takenSnapshot{}, err
		}
		for _, p := range ts.LeftOut {
			cons.Printf(lineLeftOut, console.Text(p))
		}
		if ts.Unheld != "" {
			cons.Printf(lineUnheld, console.Text(ts.Unheld))
		}
		return takenSnapshot{tree: ts, afterGates: after}, nil
	})
	return s
}

// held is the kept index of the snapshot (git.TreeSnapshot.Held) when it
// has been taken, or is being taken, before the gates; it takes none.
func (s *snapshot) held() (git.Held, bool) {
	if !s.taken.started.Load() {
		return git.Held{}, false
	}
	ts, err := s.taken.get()
	if err != nil || ts.afterGates {
		return git.Held{}, false
	}
	return ts.tree.Held()
}

// start starts taking the snapshot, when nothing has yet.
func (s *snapshot) start() { s.taken.start() }

// tree is the tree of the snapshot, taking it if needed.
func (s *snapshot) tree() (string, error) {
	ts, err := s.taken.get()
	if err != nil {
		return "", err
	}
	return ts.tree.Tree, nil
}

// keyTree is what a gate can see in the snapshot (its KeyTree: the whole
// work tree as it is on disk, the repositories inside it included), taking
// it if needed; an error says why there is none.
func (s *snapshot) keyTree() (string, error) {
	ts, err := s.taken.get()
	if err != nil {
		return "", err
	}
	if ts.tree.KeyTree == "" {
		return "", fmt.Errorf("the snapshot cannot hold all the work tree: %s", ts.tree.Uncertain)
	}
	return ts.tree.KeyTree, nil
}

// readTree is the keyTree, "" when there is none: a review diff then
// shows the repositories inside the work tree as commits, and says so.
func (s *snapshot) readTree() string {
	tree, err := s.keyTree()
	if err != nil {
		return ""
	}
	return tree
}

// listing is the snapshot the run's changes are read from, taking it if
// needed; nil when it cannot be taken (git takes one of its own).
func (s *snapshot) listing() *git.TreeSnapshot {
	ts, err := s.taken.get()
	if err != nil {
		return nil
	}
	return ts.tree
}

// gatesEnded notes that every gate has ended, and whether any ran: a
// snapshot taken from now on is the work tree the gates left.
func (s *snapshot) gatesEnded(ran bool) {
	s.gatesRan.Store(ran)
	s.gatesDone.Store(true)
}

// noGateRan reports whether the gates have ended without any running.
func (s *snapshot) noGateRan() bool { return s.gatesDone.Load() && !s.gatesRan.Load() }

// treeMoved reports whether the work tree differs from the snapshot taken
// before the gates (asked once; false for a snapshot taken after them, or
// when no gate ran).
func (s *snapshot) treeMoved(ctx context.Context) (bool, error) {
	s.moved.once.Do(func() {
		ts, err := s.taken.get()
		switch {
		case err != nil:
			s.moved.changed, s.moved.err = true, err
		case ts.afterGates || s.noGateRan():
		default:
			s.moved.changed, s.moved.err = ts.tree.Changed(ctx)
			s.moved.checked = true
		}
	})
	return s.moved.changed, s.moved.err
}

// still reports whether the work tree is still the snapshot, asking git
// unless treeMoved already did.
func (s *snapshot) still(ctx context.Context) bool {
	if moved, err := s.treeMoved(ctx); s.moved.checked || err != nil {
		return err == nil && !moved
	}
	ts, err := s.taken.get()
	if err != nil {
		return false
	}
	moved, err := ts.tree.Changed(ctx)
	return err == nil && !moved
}

// close waits for the snapshot, if it is being taken, and removes its
// index.
func (s *snapshot) close() {
	if s == nil || !s.taken.started.Load() {
		return
	}
	if ts, err := s.taken.get(); err == nil {
		ts.tree.Close()
	}
}
