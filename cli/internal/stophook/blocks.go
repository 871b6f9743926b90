package stophook

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// blocksKind is the store kind of the record of the stops this hook
// blocked.
const blocksKind = "blocks"

// maxBlocked bounds the sessions a blocks record keeps: past it the oldest
// block is forgotten (its session's next stop is verified, not let go).
const maxBlocked = 64

// blocks is the record, per project and work tree, of the agent sessions
// whose last stop this hook answered with a block, and when. The loop
// guard lets a stop go unverified only right after such a block: the
// client's loop signal alone also follows another hook's block, or none.
// Config names the sessions whose last block was a configuration's that
// does not load (Outcome.configBlock): the one block a stop may be let
// go after; a gate's block never is.
type blocks struct {
	Sessions map[string]time.Time `json:"sessions"`
	Config   map[string]bool      `json:"config,omitempty"`
}

// blocksAt is where the blocks record of the project at root is: the
// store and its key; ok is false when the project is in no git repository
// (nothing is recorded there).
func blocksAt(ctx context.Context, root string) (store.Store, []string, bool) {
	return recordAt(ctx, root, blocksKind)
}

// recordAt is where the record of kind of the project at root is, per
// project and work tree: the store and its key; ok is false when the
// project is in no git repository (nothing is recorded there).
func recordAt(ctx context.Context, root, kind string) (store.Store, []string, bool) {
	p, err := place.Locate(ctx, root)
	if err != nil || p.CommonDir == "" {
		return store.Store{}, nil, false
	}
	return store.Open(p.CommonDir, kind), []string{p.Project(), p.Worktree()}, true
}

// takeBlock reports whether the last stop of session in the project at
// root was answered with a block of a configuration that does not load
// (config), and forgets the block: whatever this stop answers, the next
// one follows this one. A hook ended before it answered leaves no block
// behind. A record that cannot be read reads as no block (the stop is
// verified).
func (h *hook) takeBlock(ctx context.Context, root, session string) (config bool) {
	st, key, ok := blocksAt(ctx, root)
	if !ok {
		return false
	}
	var b blocks
	if found, err := st.Read(&b, key...); !found || err != nil {
		return false
	}
	if _, blocked := b.Sessions[session]; !blocked {
		return false
	}
	config = b.Config[session]
	err := st.Update(&b, func() (bool, error) {
		_, had := b.Sessions[session]
		delete(b.Sessions, session)
		delete(b.Config, session)
		return had, nil
	}, key...)
	if err != nil {
		h.warn("cannot update the record of blocked stops: %v", err)
	}
	return config
}

// noteBlock records that this stop of session in the project at root was
// answered with a block, of a configuration that does not load (config)
// or not.
func (h *hook) noteBlock(ctx context.Context, root, session string, config bool) {
	st, key, ok := blocksAt(ctx, root)
	if !ok {
		return
	}
	var b blocks
	err := st.Update(&b, func() (bool, error) {
		b.Sessions = noteSession(b.Sessions, session, h.o.Now())
		if b.Config == nil {
			b.Config = map[string]bool{}
		}
		b.Config[session] = config
		maps.DeleteFunc(b.Config, func(s string, c bool) bool {
			_, kept := b.Sessions[s]
			return !c || !kept
		})
		return true, nil
	}, key...)
	if err != nil {
		h.warn("cannot record the blocked stop: %v", err)
	}
}

// noteSession adds session's block at to sessions, keeping the newest
// maxBlocked.
func noteSession(sessions map[string]time.Time, session string, at time.Time) map[string]time.Time {
	if sessions == nil {
		sessions = map[string]time.Time{}
	}
	sessions[session] = at
	for len(sessions) > maxBlocked {
		oldest := slices.MinFunc(slices.Collect(maps.Keys(sessions)), func(a, b string) int {
			return sessions[a].Compare(sessions[b])
		})
		delete(sessions, oldest)
	}
	return sessions
}
