// Package verdicts keeps the gauntlet's own record of its verdicts: each
// check's latest result, each review slot's latest verdict with its
// violations as the reviewer reported them, the retry budget of the
// current episode and the start of the stop hook's interval. They are
// written when they happen, outside the work tree, under the git common
// directory (<git common dir>/agent-gauntlet/verdicts/<project>/<worktree>.json),
// one book per project place and work tree, atomically, under a lock,
// bounded in size.
//
// The log directory stays the agent's side of the conversation: in a
// review JSON file the agent marks a violation "fixed" or "skipped" with a
// "result" note (or lets update-review do it). Pending merges exactly those
// annotations onto the book's violations, matched by violation identity,
// and ignores everything else the agent changed there: a flipped verdict, a
// violation deleted, reworded or moved, a violation added, a file removed.
// A violation stays pending until a verification run says otherwise.
//
// A project that has logs of an older version but no book is seeded once
// from them (Seed); an execution state written by the TypeScript tool
// (IntervalStart) keeps measuring the interval from last_run_completed_at.
package verdicts

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Kind is the store's kind of the books.
const Kind = "verdicts"

// Bounds of a book. Past them a slot keeps its first MaxViolations
// violations and counts the rest (it stays failing); a book with more jobs
// is refused (ErrTooLarge), never silently cut.
const (
	MaxViolations = 200
	MaxJobs       = 5000
	MaxBookBytes  = 16 << 20
)

// ErrTooLarge is matched by the error of a change that would take a book
// past its bounds.
var ErrTooLarge = errors.New("verdict record over its bounds")

// Status is a verdict: a check's or a review slot's.
type Status string

// Verdicts. An error is a check's verdict (it counts as a failure); a
// review slot that erred reached no verdict and is not recorded.
const (
	StatusPass             Status = "pass"
	StatusFail             Status = "fail"
	StatusError            Status = "error"
	StatusSkippedPriorPass Status = "skipped_prior_pass"
)

// Book is the verdict record of one project in one work tree.
type Book struct {
	// ID tells this book from every other, set when it is first written
	// and kept: a book moves with its repository (mv) and a clone or a
	// repository made anew at the same path starts another, so a record
	// kept outside the repository (a session's, SessionBook.BookID) knows
	// it by this, not by its path.
	ID string `json:"id,omitempty"`
	// Branch is the work tree's branch at the last run.
	Branch string `json:"branch"`
	// LastRun is the number of the last run that recorded anything, and
	// LastRunAt when it ended.
	LastRun   int       `json:"last_run"`
	LastRunAt time.Time `json:"last_run_at,omitzero"`
	// LastFullPassAt starts the stop hook's interval: when the last run
	// covering every applicable gate passed; zero when none did, or a run
	// failed since.
	LastFullPassAt time.Time `json:"last_full_pass_at,omitzero"`
	// FullPassEnv is the fingerprint of the environment that pass ran in
	// (the one the result cache keys by): the interval is started only for
	// a stop in that environment. "" for a pass recorded before it was
	// kept (an older version's book, one seeded from the logs).
	FullPassEnv string `json:"full_pass_env,omitempty"`
	// FullPass is what that pass verified (see PassedFull); nil when it is
	// not known (no snapshot could be taken, an older version's book).
	FullPass *FullPass `json:"full_pass,omitempty"`
	// Episode is the span of runs since a run first left failures
	// pending, with the retry budget the agent spent in it; nil when none
	// is open.
	Episode *Episode `json:"episode,omitempty"`
	// Snapshot is what the last run of the work tree recorded of the tree
	// it judged, nil before any: the next run verifies the changes since.
	Snapshot *Snapshot `json:"snapshot,omitempty"`
	// Verified are, per branch, the last point its gates were seen to
	// pass (see MarkVerified): work committed onto that branch since is
	// never taken for the base's own.
	Verified map[string]Point `json:"verified,omitempty"`
	// Checks are the latest verdict of each check job; Slots of each review
	// slot, by job id and slot index.
	Checks map[string]CheckVerdict        `json:"checks"`
	Slots  map[string]map[int]SlotVerdict `json:"slots"`
	// Cleared says when and why verdicts were last dropped without a run
	// that verified them (an archive after a branch change, clean), for
	// the person to be told.
	Cleared *Clearing `json:"cleared,omitempty"`
	// Trust is the trusted configuration the stop hook last ran with, and
	// TrustChange the last change of it the stop hook saw between two of
	// its stops (see SeeTrust).
	Trust       *TrustSeen   `json:"trust,omitempty"`
	TrustChange *TrustChange `json:"trust_change,omitempty"`
	// Excludes are the ignore rules the stop hook last saw (every ignore
	// file in the work tree, the repository's info/exclude, the user's
	// global ignore file, the sparse-checkout patterns), and ExcludesChange
	// the last change of them between two of its stops (see SeeExcludes):
	// a file they hide is no change.
	Excludes       *TrustSeen   `json:"excludes,omitempty"`
	ExcludesChange *TrustChange `json:"excludes_change,omitempty"`
	// Notices are what stops said once and then took as told (see Tell),
	// newest last: each is told again as TrustChange is (delivered).
	Notices []Notice `json:"notices,omitempty"`
	// NoticesDropped counts the notices dropped past MaxNotices, nil for
	// none: every answer says how many.
	NoticesDropped *DroppedNotices `json:"notices_dropped,omitempty"`
	// Seeded says the book was started from an older version's log
	// directory (Seed), when.
	Seeded time.Time `json:"seeded_from_logs_at,omitzero"`
	// Damaged is set on the book Update hands over when the stored one
	// could not be used (why): its verdicts are lost, so the caller
	// rebuilds it from the log directory (Seed) and tells the person.
	Damaged string `json:"-"`
}

// Episode is the span of runs from the first that left failures pending
// to the run that verifies them all, and the retry budget the agent spends
// in it.
type Episode struct {
	// StartedAt is when it began, FirstRun its first run's number.
	StartedAt time.Time `json:"started_at"`
	FirstRun  int       `json:"first_run"`
	// Runs is how many of its runs the budget counted (the agent's, see
	// CountRun), every session's.
	Runs int `json:"runs"`
	// SessionID is the agent session of its last counted run.
	SessionID string `json:"session_id,omitempty"`
	// Branch and Head are the branch and HEAD when it began; LastHead is
	// HEAD at its last counted run.
	Branch   string `json:"branch"`
	Head     string `json:"head,omitempty"`
	LastHead string `json:"last_head,omitempty"`
	// Sessions are the retry budgets of its agent sessions, each spent
	// by that session's own stops alone, the last counted last; at most
	// MaxSessionBudgets (see Budgets for a book without them).
	Sessions []SessionBudget `json:"sessions,omitempty"`
	// Base is where the change set of its first run began: the merge base
	// with the base branch, the last verified point of a base branch that
	// is HEAD's own, or git's empty tree before the first commit. A run
	// that verifies the episode's failures looks at everything since,
	// whatever refs moved: moving one does not end an episode silently.
	Base string `json:"base,omitempty"`
	// Reason says why it began ("first run", "new session", ...).
	Reason string `json:"reason,omitempty"`
}

// SessionBudget is the retry budget one agent session spent in an
// episode.
type SessionBudget struct {
	// Session is the hook input's session id ("" when it named none).
	Session string `json:"session"`
	// Runs is how many of its stops the budget counted; LastHead is HEAD
	// at the last of them (a new commit since starts a fresh budget at the
	// retry limit).
	Runs     int    `json:"runs"`
	LastHead string `json:"last_head,omitempty"`
}

// MaxSessionBudgets bounds the sessions an episode keeps a budget for:
// past it the budget counted least recently is dropped, and its session
// starts a fresh one if it stops again (it is sent back more, never
// less).
const MaxSessionBudgets = 16

// Snapshot is the work tree a run judged.
type Snapshot struct {
	// Run is the run's number; Ref the commit capturing the work tree
	// (tracked and untracked files) it judged, on Commit, HEAD then.
	Run    int    `json:"run"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Scope is the run's change scope, Definitions a fingerprint of each
	// of its review jobs' definition: they tell which reviews judged the
	// snapshot as they are defined now.
	Scope       string            `json:"scope,omitempty"`
	Definitions map[string]string `json:"review_definitions,omitempty"`
	// Key identifies everything in the work tree the gates could read, as
	// FullPass.Key does; "" when it could not be told (or an older
	// version wrote the book), and then only Ref's tree is compared.
	Key string `json:"key,omitempty"`
	// Masked are the paths where Commit holds content that no stop judged
	// and the work tree judged did not hold (relative to the top level,
	// sorted): a pass names them while they last.
	Masked []string `json:"masked,omitempty"`
	// Staged are the paths where the user's index staged such content
	// (relative to the top level, sorted), Index identifies what it
	// staged then (gitindex.File.Staged).
	Staged []string `json:"staged,omitempty"`
	Index  string   `json:"index,omitempty"`
	// Passed is true when the run was a full run and every gate passed on
	// Ref's tree: only such a tree excuses what HEAD holds later.
	Passed bool `json:"passed,omitempty"`
}

// FullPass is what the last full pass verified: the stop hook's interval
// then tells what changed since from it.
type FullPass struct {
	// Ref is the snapshot commit of the work tree it judged (on HEAD then,
	// recording the base commit); Config identifies the configuration it
	// ran.
	Ref    string `json:"ref"`
	Config string `json:"config,omitempty"`
	// Key identifies everything in the work tree the gates could read
	// then, as the result cache keys it (the snapshot's tree with the
	// repositories inside it, and what its links lead to that it does not
	// hold); "" when it could not be told, and then nothing is known to be
	// unchanged since.
	Key string `json:"key,omitempty"`
	// Programs identifies the programs its checks' commands name
	// (ProgramWords: the words that can name one), as the pass found them
	// on PATH; "" when it was not recorded (an older version's). A stop
	// whose PATH leads those words elsewhere, or to a program changed
	// since, is in another environment: the pass starts no interval there.
	Programs     string   `json:"programs,omitempty"`
	ProgramWords []string `json:"program_words,omitempty"`
	// Unanchored names the commits before the pass's change set that no
	// point anchors and the pass marked none over (a run by hand), ""
	// for none: every approve in the interval it starts tells them, as
	// the pass told the shell it ran in.
	Unanchored string `json:"unanchored,omitempty"`
	// Outside are the files outside the work tree that its checks'
	// commands name (by absolute path), each with what was there as the
	// result cache's keys hold it ("" for one no key could hold): the
	// interval tells one that changed since as not verified.
	Outside map[string]string `json:"outside,omitempty"`
}

// Point is a commit the gates were seen to pass on, and when.
type Point struct {
	Commit string    `json:"commit"`
	At     time.Time `json:"at"`
}

// MaxVerified bounds the branches whose verified point a book keeps: the
// oldest is dropped first.
const MaxVerified = 64

// CheckVerdict is a check job's latest verdict.
type CheckVerdict struct {
	Status Status    `json:"status"`
	Run    int       `json:"run"`
	At     time.Time `json:"at"`
	// Log is its log file's name in the log directory.
	Log string `json:"log,omitempty"`
	// Env is the fingerprint of the environment of the run that reached
	// it (the one the result cache keys by), "" in an older version's
	// book.
	Env string `json:"env,omitempty"`
	// Held is the failure a pass in another environment than the
	// failure's own replaced (see Held): still pending to a run in any
	// environment but Env.
	Held *CheckVerdict `json:"held,omitempty"`
}

// SlotVerdict is a review slot's latest verdict.
type SlotVerdict struct {
	Adapter string    `json:"adapter"`
	Status  Status    `json:"status"`
	Run     int       `json:"run"`
	At      time.Time `json:"at"`
	// JSON is the name, in the log directory, of the review JSON file the
	// agent annotates; "" when the slot wrote none.
	JSON string `json:"json,omitempty"`
	// Violations are the reviewer's, as it reported them; Omitted counts
	// those past MaxViolations.
	Violations []Violation `json:"violations"`
	Omitted    int         `json:"omitted,omitempty"`
	// BelowThreshold are, for a pass of a verification run, the new
	// violations the reviewer reported below the rerun threshold, which
	// the pass left out: a later run that skips the slot for this pass
	// still tells them.
	BelowThreshold []Violation `json:"below_threshold,omitempty"`
	// Env and Held are CheckVerdict's.
	Env  string       `json:"env,omitempty"`
	Held *SlotVerdict `json:"held,omitempty"`
}

// Violation is one review finding as the reviewer reported it.
type Violation struct {
	// ID is the violation's stable id (the review JSON's "id"), "" for one
	// of an older version's log.
	ID string `json:"id,omitempty"`
	// File and Line locate it; LineText is the line as written when it is
	// not a number ("?"), Line 0 then.
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	LineText string `json:"line_text,omitempty"`
	Anchor   string `json:"anchor,omitempty"`
	Issue    string `json:"issue"`
	Fix      string `json:"fix,omitempty"`
	Priority string `json:"priority,omitempty"`
}

// TrustSeen is a trusted configuration as the stop hook saw it.
type TrustSeen struct {
	// Key tells one configuration from another (how and when it was
	// recorded); Desc says how and when, for the person.
	Key  string `json:"key"`
	Desc string `json:"desc"`
	// At is when the stop hook saw it.
	At time.Time `json:"seen_at"`
	// Files fingerprint each of its parts by name, when it has parts (the
	// ignore rules: see SeeExcludes), so that a change can name them.
	Files map[string]string `json:"files,omitempty"`
	// Lines are the rules (lines neither blank nor comments) of the small
	// ignore files outside the work tree, by their names in Files, as they
	// were when Files fingerprinted them: what a change of one added or
	// took away can then be told from its older lines.
	Lines map[string][]string `json:"lines,omitempty"`
}

// Changed names the parts (TrustSeen.Files) that differ between From and
// To, sorted: added, removed or changed.
func (c *TrustChange) Changed() []string {
	var names []string
	for n, v := range c.To.Files {
		if w, ok := c.From.Files[n]; !ok || w != v {
			names = append(names, n)
		}
	}
	for n := range c.From.Files {
		if _, ok := c.To.Files[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// TrustChange is a change of the trusted configuration between two stops,
// in the agent session whose stop first saw it.
type TrustChange struct {
	From    TrustSeen `json:"from"`
	To      TrustSeen `json:"to"`
	Session string    `json:"session,omitempty"`
}

// SeeTrust records seen as the trusted configuration a stop of session
// runs with, and returns the change to tell in its answer: the last change
// of the trusted configuration between two stops when this session (or a
// stop without a session) is the one that first saw it; nil otherwise.
// Whoever changed it, a person or the agent through trust or init, the
// session in which it happened hears of it in every answer.
func (b *Book) SeeTrust(seen TrustSeen, session string) *TrustChange {
	return see(&b.Trust, &b.TrustChange, seen, session)
}

// SeeExcludes is SeeTrust for the ignore rules (seen.Files fingerprints
// each ignore file, the sparse-checkout patterns): a file newly ignored
// through them hides from every gate, so the session in which they
// changed hears of it in every answer. What an older version recorded,
// the ignore files outside the work tree alone without Files, is replaced
// silently: telling a change of rules nobody changed would teach the
// person to skip the notice. A change seen while an earlier one is still
// told (NoticeWindow) joins it: a second edit cannot take the first one's
// notice away.
func (b *Book) SeeExcludes(seen TrustSeen, session string) *TrustChange {
	if b.Excludes != nil && b.Excludes.Files == nil && seen.Files != nil {
		b.Excludes = nil
	}
	prev := b.ExcludesChange
	c := see(&b.Excludes, &b.ExcludesChange, seen, session)
	if n := b.ExcludesChange; prev != nil && n != prev && n.To.At.Sub(prev.To.At) < NoticeWindow {
		// A change still being told is not taken away by the next one:
		// the notice spans both.
		n.From = prev.From
	}
	return c
}

// NoticeWindow is how long every session hears of a change SeeTrust or
// SeeExcludes recorded, whichever session saw it first: a stop hook the
// agent runs itself, under a session id of its own, cannot take the
// notice away from the session a person watches.
const NoticeWindow = 24 * time.Hour

// see records seen as what a stop of session saw (last), records a change
// from what an earlier stop saw (change), and returns the change to tell:
// to the session (or a stop without a session) that first saw it, and to
// every session for NoticeWindow after it was seen; nil for none.
func see(last **TrustSeen, change **TrustChange, seen TrustSeen, session string) *TrustChange {
	if prev := *last; prev != nil && prev.Key != seen.Key {
		*change = &TrustChange{From: *prev, To: seen, Session: session}
	}
	if *last == nil || (*last).Key != seen.Key {
		*last = &seen
	}
	c := *change
	if c != nil && delivered(c.Session, c.To.At, session, seen.At) {
		return c
	}
	return nil
}

// delivered is the one rule by which a notice first seen by a stop of
// session by at is told to a stop of session to at now: to the session
// that saw it (or any stop when either has no session) always, and to
// every other session for NoticeWindow after it was seen, so that a stop
// hook the agent runs itself, under a session id of its own, cannot take
// it away from the session a person watches.
func delivered(by string, at time.Time, to string, now time.Time) bool {
	return to == "" || by == "" || by == to || now.Sub(at) < NoticeWindow
}

// Notice is something a stop said once and then took as told: what its
// run could not look at and marked a point over, a configuration adopted
// at that stop. Text is the sentence as told; Session the agent session
// whose stop first told it, At when.
type Notice struct {
	Text    string    `json:"text"`
	Session string    `json:"session,omitempty"`
	At      time.Time `json:"at"`
}

// DroppedNotices counts the notices a book could no longer keep (past
// MaxNotices): what they said is lost, so every answer says how many.
type DroppedNotices struct {
	Count int       `json:"count"`
	Last  time.Time `json:"last_at"`
}

// MaxNotices bounds the notices a book keeps: past it the oldest is
// dropped, and counted (NoticesDropped), never silently.
const MaxNotices = 256

// Tell records text as told by a stop of session at at, unless the same
// text is recorded already (its first telling stands), and reports
// whether it recorded it. Whatever a stop says once and then treats as
// told goes through Tell, so that Told delivers it by the trust change's
// rule.
func (b *Book) Tell(text, session string, at time.Time) bool {
	if text == "" || slices.ContainsFunc(b.Notices, func(n Notice) bool { return n.Text == text }) {
		return false
	}
	b.Notices = append(b.Notices, Notice{Text: text, Session: session, At: at})
	if over := len(b.Notices) - MaxNotices; over > 0 {
		b.Notices = slices.Delete(b.Notices, 0, over)
		if b.NoticesDropped == nil {
			b.NoticesDropped = &DroppedNotices{}
		}
		b.NoticesDropped.Count += over
		b.NoticesDropped.Last = at
	}
	return true
}

// Told are the notices to tell a stop of session at now (delivered),
// oldest first.
func (b *Book) Told(session string, now time.Time) []Notice {
	var out []Notice
	for _, n := range b.Notices {
		if delivered(n.Session, n.At, session, now) {
			out = append(out, n)
		}
	}
	return out
}

// Clearing is a drop of verdicts without a verification run.
type Clearing struct {
	At time.Time `json:"at"`
	// Reason says what dropped them, for the person ("the branch changed
	// from a to b", "agent-gauntlet clean").
	Reason string `json:"reason"`
	// Checks and Slots count what was pending then; Jobs names its jobs,
	// sorted.
	Checks int      `json:"checks"`
	Slots  int      `json:"slots"`
	Jobs   []string `json:"jobs,omitempty"`
}

// Key names one book.
type Key struct {
	// CommonDir is the git common directory; Project and Worktree the
	// place's keys (place.Place.Project, Worktree).
	CommonDir, Project, Worktree string
}

// KeyOf is the key of the book of the project at p, in p's work tree.
func KeyOf(p place.Place) Key {
	return Key{CommonDir: p.CommonDir, Project: p.Project(), Worktree: p.Worktree()}
}

// NewBook is an empty book.
func NewBook() *Book { return newBook() }

// newBook is an empty book.
func newBook() *Book {
	return &Book{Checks: map[string]CheckVerdict{}, Slots: map[string]map[int]SlotVerdict{}}
}

// RecordCheck records check job's verdict v (pass, fail or error),
// replacing the one before.
func (b *Book) RecordCheck(job string, v CheckVerdict) error {
	if _, ok := b.Checks[job]; !ok && b.jobs() >= MaxJobs {
		return fmt.Errorf("record %s: %w (%d jobs)", job, ErrTooLarge, MaxJobs)
	}
	prev := b.Checks[job]
	v.Held = held(prev, prev.Held, prev.failing(), v.Env, v.failing())
	b.Checks[job] = v
	b.noteRun(v.Run, v.At)
	return nil
}

// failing reports a verdict that leaves the check pending.
func (v CheckVerdict) failing() bool { return v.Status == StatusFail || v.Status == StatusError }

// failing reports a verdict that leaves the slot pending.
func (v SlotVerdict) failing() bool { return v.Status == StatusFail }

// verdict is a check's or a slot's verdict.
type verdict interface {
	CheckVerdict | SlotVerdict
}

// held is the failure a verdict reached in the environment env holds (see
// CheckVerdict.Held), the verdict before being prev (its own held failure
// prevHeld, failing whether it failed): a pass in another environment
// than a failure's holds that failure, and one in the failure's own
// environment verifies it; a failure holds none. So a failure cleared by
// a run by hand in another environment stays pending to the stop hook in
// its own (the result cache's fingerprint): nothing a run proved in one
// environment is taken in another.
func held[V verdict](prev V, prevHeld *V, failing bool, env string, nowFailing bool) *V {
	switch {
	case nowFailing:
		return nil
	case failing:
		if e := envOf(prev); e == env || e == "" {
			return nil
		}
		h := prev
		clearHeld(&h)
		return &h
	case prevHeld != nil && envOf(*prevHeld) != env:
		return prevHeld
	}
	return nil
}

// envOf is the environment of v.
func envOf[V verdict](v V) string {
	switch v := any(v).(type) {
	case CheckVerdict:
		return v.Env
	case SlotVerdict:
		return v.Env
	}
	return ""
}

// clearHeld drops v's own held failure.
func clearHeld[V verdict](v *V) {
	switch v := any(v).(type) {
	case *CheckVerdict:
		v.Held = nil
	case *SlotVerdict:
		v.Held = nil
	}
}

// In is the verdict a run in the environment env takes: v, or the failure
// v holds when v was reached in another environment.
func (v CheckVerdict) In(env string) CheckVerdict {
	if v.Held != nil && v.Env != env {
		return *v.Held
	}
	return v
}

// In is CheckVerdict.In of a slot.
func (v SlotVerdict) In(env string) SlotVerdict {
	if v.Held != nil && v.Env != env {
		return *v.Held
	}
	return v
}

// RecordSlot records review job's slot verdict v (pass, fail or
// skipped_prior_pass), replacing the one before. An error is no verdict:
// the slot keeps its last one (its violations stay to verify).
func (b *Book) RecordSlot(job string, slot int, v SlotVerdict) error {
	if v.Status == StatusError {
		return nil
	}
	if _, ok := b.Slots[job]; !ok && b.jobs() >= MaxJobs {
		return fmt.Errorf("record %s: %w (%d jobs)", job, ErrTooLarge, MaxJobs)
	}
	if over := len(v.Violations) - MaxViolations; over > 0 {
		v.Violations, v.Omitted = v.Violations[:MaxViolations], v.Omitted+over
	}
	if len(v.BelowThreshold) > MaxViolations {
		v.BelowThreshold = v.BelowThreshold[:MaxViolations]
	}
	if b.Slots[job] == nil {
		b.Slots[job] = map[int]SlotVerdict{}
	}
	prev, had := b.Slots[job][slot]
	v.Held = nil
	if had {
		v.Held = held(prev, prev.Held, prev.failing(), v.Env, v.failing())
	}
	b.Slots[job][slot] = v
	b.noteRun(v.Run, v.At)
	return nil
}

// jobs counts the jobs with a verdict.
func (b *Book) jobs() int { return len(b.Checks) + len(b.Slots) }

// noteRun keeps the latest run seen.
func (b *Book) noteRun(run int, at time.Time) {
	if run > b.LastRun {
		b.LastRun = run
	}
	if at.After(b.LastRunAt) {
		b.LastRunAt = at
	}
}

// Finish records the end of a run at: a full run (every applicable gate
// of the work tree) that passed starts the interval and ends the episode;
// a failed run (failed, or over the retry limit) ends the interval; a
// partial run changes neither.
func (b *Book) Finish(at time.Time, full, passed, failed bool) {
	b.noteRun(0, at)
	switch {
	case full && passed:
		b.LastFullPassAt, b.FullPassEnv = at, ""
		b.Episode = nil
		b.Cleared = nil // the tree as it is was verified since
	case failed:
		b.LastFullPassAt, b.FullPass = time.Time{}, nil
	}
}

// PassedFull records what the full pass Finish just recorded verified
// (nil: not known) and the fingerprint of the environment it ran in.
func (b *Book) PassedFull(env string, what *FullPass) {
	if !b.LastFullPassAt.IsZero() {
		b.FullPass, b.FullPassEnv = what, env
	}
}

// PassedIn reports whether the interval's full pass ran in the
// environment env (or recorded none: an older version's pass).
func (b *Book) PassedIn(env string) bool {
	return b.FullPassEnv == "" || b.FullPassEnv == env
}

// CountRun adds a run of start's session to the retry budget of the open
// episode, opening one (for reason, with start's branch, HEAD and base)
// when none is open, and returns the run's place in that session's
// budget, 1 for its first: no other session's runs count in it. The
// episode's last HEAD and session become start's (its session only when
// it has one).
func (b *Book) CountRun(start Episode, reason string) int {
	b.OpenEpisode(start, reason)
	e := b.Episode
	e.Sessions = e.Budgets()
	i := slices.IndexFunc(e.Sessions, func(s SessionBudget) bool { return s.Session == start.SessionID })
	sb := SessionBudget{Session: start.SessionID}
	if i >= 0 {
		sb = e.Sessions[i]
		e.Sessions = slices.Delete(e.Sessions, i, i+1)
	}
	sb.Runs++
	sb.LastHead = start.Head
	e.Sessions = append(e.Sessions, sb)
	if over := len(e.Sessions) - MaxSessionBudgets; over > 0 {
		e.Sessions = slices.Delete(e.Sessions, 0, over)
	}
	e.Runs++
	e.LastHead = start.Head
	if start.SessionID != "" {
		e.SessionID = start.SessionID
	}
	return sb.Runs
}

// OpenEpisode opens an episode (for reason, with start's branch, HEAD and
// base, no run counted) when none is open, and leaves an open one as it
// is.
func (b *Book) OpenEpisode(start Episode, reason string) {
	if b.Episode == nil {
		b.NewEpisode(start, reason)
	}
}

// FreshBudget gives session a fresh retry budget in the open episode for
// reason (a new commit after its retry limit, or a first stop after
// another session reached its own): no run of it counted yet. Where the
// episode's change set began stays: its failures are still verified from
// there.
func (b *Book) FreshBudget(session, reason string) {
	e := b.Episode
	if e == nil {
		return
	}
	e.Sessions = e.Budgets()
	if i := slices.IndexFunc(e.Sessions, func(s SessionBudget) bool { return s.Session == session }); i >= 0 {
		e.Sessions[i].Runs = 0
	}
	e.Reason = reason
}

// Budgets are the retry budgets of the episode's sessions, the last
// counted last. An episode an older version recorded (or one carried over
// from the logs) counted every run in one budget: it is its last
// session's.
func (e *Episode) Budgets() []SessionBudget {
	if e == nil {
		return nil
	}
	if len(e.Sessions) == 0 && e.Runs > 0 {
		return []SessionBudget{{Session: e.SessionID, Runs: e.Runs, LastHead: e.LastHead}}
	}
	return slices.Clone(e.Sessions)
}

// Budget is the retry budget session spent in the open episode: the runs
// of its own stops the budget counted, and HEAD at the last of them; 0
// and "" with none open or none counted.
func (b *Book) Budget(session string) SessionBudget {
	for _, s := range b.Episode.Budgets() {
		if s.Session == session {
			return s
		}
	}
	return SessionBudget{Session: session}
}

// Last is the budget of the session of the open episode's last counted
// run (see Budget), zero with none open or none counted.
func (b *Book) Last() SessionBudget {
	all := b.Episode.Budgets()
	if len(all) == 0 {
		return SessionBudget{}
	}
	return all[len(all)-1]
}

// ReachedElsewhere reports whether a session other than session spent
// its whole retry budget of allowed runs in the open episode.
func (b *Book) ReachedElsewhere(session string, allowed int) bool {
	return slices.ContainsFunc(b.Episode.Budgets(), func(s SessionBudget) bool {
		return s.Session != session && s.Runs >= allowed
	})
}

// Settle drops every verdict after a run in the environment env that
// verified them all (it passed and archived the logs) and ends the
// episode: nothing is pending after it to a run in env, and nothing was
// dropped unverified. A failure held by a pass in env (a run by hand in
// its own environment cleared it) stays, with that pass: a run in any
// other environment still verifies it.
func (b *Book) Settle(env string) {
	maps.DeleteFunc(b.Checks, func(_ string, v CheckVerdict) bool { return v.Held == nil || v.Env != env })
	for job, slots := range b.Slots {
		maps.DeleteFunc(slots, func(_ int, v SlotVerdict) bool { return v.Held == nil || v.Env != env })
		if len(slots) == 0 {
			delete(b.Slots, job)
		}
	}
	b.Episode = nil
}

// MarkVerified records commit as the last point the gates were seen to
// pass on branch, at (a full run that passed, or found nothing changed).
// Past MaxVerified branches, the oldest point is dropped.
func (b *Book) MarkVerified(branch, commit string, at time.Time) {
	if branch == "" || commit == "" {
		return
	}
	if b.Verified == nil {
		b.Verified = map[string]Point{}
	}
	b.Verified[branch] = Point{Commit: commit, At: at}
	for len(b.Verified) > MaxVerified {
		oldest := ""
		for name, p := range b.Verified {
			if oldest == "" || p.At.Before(b.Verified[oldest].At) {
				oldest = name
			}
		}
		delete(b.Verified, oldest)
	}
}

// VerifiedOn is the last point the gates were seen to pass on branch.
func (b *Book) VerifiedOn(branch string) (Point, bool) {
	p, ok := b.Verified[branch]
	return p, ok && p.Commit != ""
}

// NewEpisode ends the open episode and opens a fresh budget (a new agent
// session, a new commit after the retry limit) with no run counted yet,
// saying why; CountRun then counts the run.
func (b *Book) NewEpisode(start Episode, reason string) {
	e := start
	e.Runs, e.Reason = 0, reason
	b.Episode = &e
}

// Lost records that the book's verdicts were lost without a run that
// verified them (a stored book that could not be used, or was deleted),
// why, at: what was pending in it is unknown, so the person is told until
// a full pass verifies the tree (Finish), as after Clear.
func (b *Book) Lost(at time.Time, why string) {
	b.Cleared = &Clearing{At: at, Reason: why}
}

// Clear drops every verdict without a verification run (the branch
// changed, clean), with the episode, the interval and the last run's
// snapshot: the gauntlet starts over. When something was pending, it
// records when and why, with how much, so that the person can be told
// until a full pass verifies the tree (Finish).
func (b *Book) Clear(at time.Time, reason string, keep func(job string) bool) {
	p := b.pending("", keep)
	if len(p.Checks)+p.slotCount() > 0 {
		b.Cleared = &Clearing{At: at, Reason: reason, Checks: len(p.Checks), Slots: p.slotCount(), Jobs: p.jobs()}
	}
	clear(b.Checks)
	clear(b.Slots)
	b.Episode, b.Snapshot, b.LastFullPassAt, b.FullPass = nil, nil, time.Time{}, nil
}
