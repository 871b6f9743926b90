package verdicts

import (
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// Legacy is what an older version's log directory holds, as the engine
// reads it there (the checks whose latest log failed, each slot's latest
// verdict): what a project upgraded with logs but no book must not lose.
type Legacy struct {
	// Checks are the failing check jobs, with their log file names.
	Checks map[string]string
	// Slots are the slots' latest verdicts.
	Slots []LegacySlot
	// Run is the highest run number of the log directory.
	Run int
	// Unproven is true when the execution state may be the agent's, not
	// an earlier tool's (a project this version started or a person
	// trusted): its last run opens no interval.
	Unproven bool
}

// LegacySlot is one slot's latest verdict in an older version's logs.
type LegacySlot struct {
	Job     string
	Slot    int
	Adapter string
	// Status is the verdict: fail when empty, or pass.
	Status Status
	Run    int
	// JSON is its review JSON file's name in the log directory ("" for a
	// legacy log): the agent's marks keep coming from it.
	JSON       string
	Violations []Violation
}

// Seed starts an empty book from an older version's log directory, once:
// its failing checks and slots become recorded verdicts (their violations
// as the files hold them now; the agent's marks keep applying from the
// same files), the retry budget goes on from the execution state's episode
// when it has one, and the interval from its last full pass.
func (b *Book) Seed(l Legacy, st *state.State, at time.Time) {
	for job, log := range l.Checks {
		b.Checks[job] = CheckVerdict{Status: StatusFail, Run: l.Run, At: at, Log: log}
	}
	for _, s := range l.Slots {
		if b.Slots[s.Job] == nil {
			b.Slots[s.Job] = map[int]SlotVerdict{}
		}
		status := s.Status
		if status == "" {
			status = StatusFail
		}
		v := SlotVerdict{Adapter: s.Adapter, Status: status, Run: s.Run, At: at, JSON: s.JSON, Violations: s.Violations}
		if over := len(v.Violations) - MaxViolations; over > 0 {
			v.Violations, v.Omitted = v.Violations[:MaxViolations], over
		}
		b.Slots[s.Job][s.Slot] = v
	}
	b.LastRun = l.Run
	b.Seeded = at
	if st == nil {
		return
	}
	b.Branch, b.LastRunAt = st.Branch, st.LastRunCompletedAt
	if st.WorkingTreeRef != "" || st.Commit != "" {
		b.Snapshot = &Snapshot{Run: st.RunNumber, Ref: st.WorkingTreeRef, Commit: st.Commit, Scope: st.Scope,
			Definitions: st.ReviewDefinitions}
	}
	if !l.Unproven {
		b.LastFullPassAt = IntervalStart(nil, st)
	}
	if !b.pending("", nil).Empty() && l.Run > 0 {
		first := st.EpisodeStartRun
		if first < 1 || first > l.Run {
			first = 1
		}
		b.Episode = &Episode{StartedAt: st.LastRunCompletedAt, FirstRun: first, Runs: l.Run - first + 1,
			SessionID: seededSession(l, st), Branch: st.Branch, Head: st.Commit, LastHead: st.Commit, Reason: "carried over from the logs"}
	}
}

// seededSession is the agent session a seeded episode charges its runs
// to: the execution state's, when an earlier tool left it. A state that
// may be the agent's (Legacy.Unproven: this version's book was lost or
// made unusable) charges no session: its logs number the runs by hand
// too, and a session charged with them would reach its retry limit, and
// be let go, before its own stops were sent back max_retries+1 times.
// Its budget starts again; the failures stay pending.
func seededSession(l Legacy, st *state.State) string {
	if l.Unproven {
		return ""
	}
	return st.SessionID
}

// IntervalStart is when the stop hook's interval starts (zero: it does
// not apply): the book's last full pass; for a project without a book
// (b nil), the execution state's: one written by this tool starts it at
// its last full pass (last_full_pass_completed_at), one with only the
// TypeScript tool's fields at last_run_completed_at.
func IntervalStart(b *Book, st *state.State) time.Time {
	switch {
	case b != nil:
		return b.LastFullPassAt
	case st == nil:
		return time.Time{}
	case typeScriptOnly(st):
		return st.LastRunCompletedAt
	}
	return st.LastFullPassAt
}

// typeScriptOnly reports an execution state holding only the TypeScript
// tool's fields: every run of this tool records its run number.
func typeScriptOnly(st *state.State) bool {
	return st.RunNumber == 0 && st.EpisodeStartRun == 0 && st.SessionID == "" && st.Scope == "" &&
		st.LastFullPassAt.IsZero() && len(st.ReviewDefinitions) == 0 && len(st.PreExisting) == 0
}
