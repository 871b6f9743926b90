package verdicts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

func key(t *testing.T) Key {
	t.Helper()
	return Key{CommonDir: t.TempDir(), Project: "app", Worktree: "worktrees/second"}
}

func TestKeyOf(t *testing.T) {
	p := place.Place{CommonDir: "/r/.git", GitDir: "/r/.git/worktrees/wt", TopLevel: "/wt", Prefix: "sub/dir/"}
	k := KeyOf(p)
	if k != (Key{CommonDir: "/r/.git", Project: "sub/dir", Worktree: "worktrees/wt"}) {
		t.Errorf("KeyOf = %+v", k)
	}
	if got := k.Path(); got != "/r/.git/agent-gauntlet/verdicts/sub%2Fdir/worktrees%2Fwt.json" {
		t.Errorf("Path = %s", got)
	}
	main := KeyOf(place.Place{CommonDir: "/r/.git", GitDir: "/r/.git", TopLevel: "/r"})
	if main.Path() == k.Path() || main.Worktree != "." || main.Project != "." {
		t.Errorf("the main work tree's key = %+v", main)
	}
}

func TestUpdateAndRead(t *testing.T) {
	k := key(t)
	if b, err := Read(k); b != nil || err != nil {
		t.Fatalf("Read without a book = %v, %v", b, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	err := Update(k, func(b *Book) error {
		if b.Damaged != "" {
			t.Errorf("a new book is damaged: %s", b.Damaged)
		}
		b.Branch = "feature"
		if err := b.RecordCheck("check:.:lint", CheckVerdict{Status: StatusFail, Run: 2, At: at, Log: "check_._lint.2.log"}); err != nil {
			return err
		}
		return b.RecordSlot(job, 1, SlotVerdict{Adapter: "claude", Status: StatusFail, Run: 2, At: at, JSON: jsonName, Violations: []Violation{vA, vLegacy}})
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(k)
	if err != nil || b.Branch != "feature" || b.LastRun != 2 || !reflect.DeepEqual(b.Slots[job][1].Violations, []Violation{vA, vLegacy}) ||
		b.Checks["check:.:lint"].Status != StatusFail {
		t.Fatalf("Read = %+v, %v", b, err)
	}
	if err := Update(k, func(*Book) error { return errors.New("changed my mind") }); err == nil {
		t.Fatal("a failed change was not reported")
	}
	if b2, _ := Read(k); !reflect.DeepEqual(b, b2) {
		t.Errorf("a failed change was written")
	}
}

// A book that cannot be used is an error to read, never "nothing
// pending"; Update hands over an empty one saying why, for the caller to
// seed again.
func TestDamagedBook(t *testing.T) {
	k := key(t)
	if err := Update(k, func(b *Book) error { return b.RecordCheck("check:.:lint", CheckVerdict{Status: StatusFail, Run: 1}) }); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(k.Path())
	if err != nil {
		t.Fatal(err)
	}
	other := k
	other.Worktree = "."
	for name, data := range map[string]string{
		"torn":           string(good[:len(good)/2]),
		"empty":          "",
		"another format": strings.Replace(string(good), `"format": 1`, `"format": 9`, 1),
		"another place":  strings.Replace(string(good), `"worktree": "worktrees/second"`, `"worktree": "."`, 1),
		"unknown field":  strings.Replace(string(good), "{", `{"surprise": 1,`, 1),
		"deleted":        deleted,
	} {
		err := os.WriteFile(k.Path(), []byte(data), 0o644)
		if data == deleted {
			err = os.Remove(k.Path())
		}
		if err != nil {
			t.Fatal(err)
		}
		if b, err := Read(k); b != nil || !errors.Is(err, ErrUnusable) {
			t.Errorf("%s: Read = %v, %v; want ErrUnusable", name, b, err)
		}
		var damaged string
		if err := Update(k, func(b *Book) error { damaged = b.Damaged; return nil }); err != nil || !strings.Contains(damaged, k.Path()) {
			t.Errorf("%s: Update handed over Damaged = %q, %v", name, damaged, err)
		}
	}
}

// deleted stands, in TestDamagedBook, for a book removed with its lock
// file left: one was written there, so its absence is not "no book".
const deleted = "\x00deleted"

// A book lost without a run that verified it (damaged, deleted) is
// recorded as a clearing: the person is told until a full pass, and a
// partial run or a failure does not end that.
func TestLost(t *testing.T) {
	b := NewBook()
	at := time.Now()
	b.Lost(at, "unusable verdict record x: torn")
	if c := b.Cleared; c == nil || !c.At.Equal(at) || !strings.Contains(c.Reason, "torn") {
		t.Fatalf("Cleared = %+v", b.Cleared)
	}
	b.Finish(at, false, true, false)
	b.Finish(at, true, false, true)
	if b.Cleared == nil {
		t.Fatal("Cleared ended without a full pass")
	}
	b.Finish(at, true, true, false)
	if b.Cleared != nil {
		t.Errorf("Cleared after a full pass = %+v", b.Cleared)
	}
}

// Concurrent writers (the hook's run and a run by hand) never lose each
// other's verdicts.
func TestConcurrentUpdates(t *testing.T) {
	k := key(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Update(k, func(b *Book) error {
				return b.RecordCheck("check:"+string(rune('a'+i)), CheckVerdict{Status: StatusFail, Run: i})
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := Read(k)
	if err != nil || len(b.Checks) != 20 {
		t.Errorf("%d verdicts after 20 concurrent updates: %v", len(b.Checks), err)
	}
}

func TestBookBounds(t *testing.T) {
	b := newBook()
	for i := range MaxJobs {
		if err := b.RecordCheck("check:"+strings.Repeat("x", i%7)+string(rune(i)), CheckVerdict{Status: StatusPass}); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.Checks) == MaxJobs {
		if err := b.RecordCheck("check:one more", CheckVerdict{Status: StatusFail}); !errors.Is(err, ErrTooLarge) {
			t.Errorf("a job past the bound = %v", err)
		}
		if err := b.RecordSlot("review:one more", 1, SlotVerdict{Status: StatusFail}); !errors.Is(err, ErrTooLarge) {
			t.Errorf("a slot past the bound = %v", err)
		}
	}
}

// The interval: a full pass starts it, a failure ends it, a partial run
// leaves it; the episode ends with a full pass.
func TestFinishAndEpisodes(t *testing.T) {
	b := newBook()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	start := Episode{StartedAt: t0, FirstRun: 1, Branch: "feature", Head: "c1", Base: "b1", SessionID: "s1"}
	if n := b.CountRun(start, "first run"); n != 1 || b.Episode.Reason != "first run" || b.Episode.Base != "b1" {
		t.Fatalf("CountRun = %d, %+v", n, b.Episode)
	}
	b.Finish(t0, true, false, true)
	if n := b.CountRun(Episode{Head: "c2", SessionID: "s1"}, "ignored: an episode is open"); n != 2 || b.Episode.Head != "c1" {
		t.Errorf("second run = %d, %+v", n, b.Episode)
	}
	b.NewEpisode(Episode{StartedAt: t0, FirstRun: 3, Head: "c3"}, "new commit")
	if n := b.CountRun(Episode{}, ""); n != 1 || b.Episode.Reason != "new commit" || b.Episode.Head != "c3" {
		t.Errorf("after NewEpisode: %d, %+v", n, b.Episode)
	}
	t1 := t0.Add(time.Minute)
	b.Finish(t1, false, true, false)
	if !b.LastFullPassAt.IsZero() || b.Episode == nil {
		t.Errorf("a partial pass started the interval or ended the episode: %+v", b)
	}
	b.Finish(t1, true, true, false)
	if !b.LastFullPassAt.Equal(t1) || b.Episode != nil {
		t.Errorf("a full pass: %+v", b)
	}
	b.Finish(t1.Add(time.Minute), false, false, true)
	if !b.LastFullPassAt.IsZero() {
		t.Errorf("a failure did not end the interval")
	}
}

// Clear drops the verdicts and says what was pending and why.
func TestClear(t *testing.T) {
	b := bookWith(vA)
	if err := b.RecordCheck("check:.:lint", CheckVerdict{Status: StatusFail}); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	b.Clear(at, "the branch changed from feature to main", nil)
	if p, _ := b.Pending(t.TempDir(), "", nil); !p.Empty() {
		t.Errorf("pending after Clear: %+v", p)
	}
	if c := b.Cleared; c == nil || c.Checks != 1 || c.Slots != 1 || !c.At.Equal(at) || !strings.Contains(c.Reason, "branch") {
		t.Errorf("Cleared = %+v", b.Cleared)
	}
}

// A project upgraded with logs but no book loses no pending failure; the
// budget and the interval carry over from its execution state.
func TestSeed(t *testing.T) {
	logDir := t.TempDir()
	f := reviewJSON(vA, vB)
	viol(f, 1)["status"] = "fixed"
	writeJSON(t, filepath.Join(logDir, jsonName), f)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &state.State{LastRunCompletedAt: at, Branch: "feature", Commit: "c1", RunNumber: 3, Scope: "local", EpisodeStartRun: 2}
	b := newBook()
	b.Seed(Legacy{Checks: map[string]string{"check:.:lint": "check_._lint.3.log"},
		Slots: []LegacySlot{{Job: job, Slot: 1, Adapter: "claude", Run: 3, JSON: jsonName, Violations: []Violation{vA, vB}}}, Run: 3}, st, at)
	p, _ := b.Pending(logDir, "", nil)
	open, _ := summarize(p)
	if !p.Checks["check:.:lint"] || !reflect.DeepEqual(open, []string{"aaaaaaa:new:", "bbbbbbb:fixed:"}) {
		t.Errorf("seeded pending = %+v, %q", p, open)
	}
	if b.Episode == nil || b.Episode.FirstRun != 2 || b.Episode.Runs != 2 || b.Seeded != at || b.LastRun != 3 {
		t.Errorf("seeded book = %+v, episode %+v", b, b.Episode)
	}
}

// A seeded episode charges its runs to the execution state's session only
// when an earlier tool left the state: a state that may be the agent's
// (this version's book lost) charges nobody, so no session reaches its
// retry limit on runs that were not its own stops.
func TestSeedBudget(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		unproven bool
		want     int
	}{
		{"an earlier tool's state", false, 3},
		{"a state that may be the agent's", true, 0},
	} {
		st := &state.State{LastRunCompletedAt: at, Branch: "b", Commit: "c", RunNumber: 3, SessionID: "s1"}
		b := newBook()
		b.Seed(Legacy{Checks: map[string]string{"check:.:lint": "check_._lint.3.log"}, Run: 3, Unproven: tc.unproven}, st, at)
		if b.Episode == nil || b.Episode.Runs != 3 {
			t.Fatalf("%s: seeded episode = %+v", tc.name, b.Episode)
		}
		if got := b.Budget("s1").Runs; got != tc.want {
			t.Errorf("%s: Budget(s1).Runs = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The interval of a project without a book: a TypeScript tool's state
// (its four fields only) measures it from last_run_completed_at; this
// tool's from its last full pass (none after a failure).
func TestIntervalStart(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pass := at.Add(-time.Hour)
	for _, tc := range []struct {
		name string
		b    *Book
		st   *state.State
		want time.Time
	}{
		{"nothing recorded", nil, nil, time.Time{}},
		{"the TypeScript tool's state", nil, &state.State{LastRunCompletedAt: at, Branch: "main", Commit: "c", WorkingTreeRef: "w"}, at},
		{"this tool's state after a pass", nil, &state.State{LastRunCompletedAt: at, RunNumber: 2, Scope: "local", LastFullPassAt: pass}, pass},
		{"this tool's state after a failure", nil, &state.State{LastRunCompletedAt: at, RunNumber: 2, Scope: "local"}, time.Time{}},
		{"a book wins over a forged state", &Book{}, &state.State{LastRunCompletedAt: at}, time.Time{}},
		{"a book's last full pass", &Book{LastFullPassAt: pass}, nil, pass},
	} {
		if got := IntervalStart(tc.b, tc.st); !got.Equal(tc.want) {
			t.Errorf("%s: IntervalStart = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An episode opens at the first failure of any run, and only the runs the
// caller counts spend its budget; a fresh budget keeps where it began;
// Settle ends it with every verdict.
func TestEpisodeBudget(t *testing.T) {
	b := newBook()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.OpenEpisode(Episode{StartedAt: t0, FirstRun: 1, Branch: "main", Head: "c1", Base: gitEmptyTree}, "a run left failures pending")
	if b.Last().Runs != 0 || b.Episode.Base != gitEmptyTree {
		t.Fatalf("a run by hand spent the budget: %+v", b.Episode)
	}
	b.OpenEpisode(Episode{Base: "other"}, "ignored")
	if b.Episode.Base != gitEmptyTree || b.Episode.Reason != "a run left failures pending" {
		t.Errorf("an open episode was replaced: %+v", b.Episode)
	}
	if n := b.CountRun(Episode{Head: "c2", SessionID: "s1"}, ""); n != 1 || b.Episode.LastHead != "c2" || b.Episode.SessionID != "s1" {
		t.Errorf("CountRun = %d, %+v", n, b.Episode)
	}
	b.CountRun(Episode{Head: "c3", SessionID: "s1"}, "")
	if b.Last().Runs != 2 || b.Budget("s1") != (SessionBudget{Session: "s1", Runs: 2, LastHead: "c3"}) {
		t.Errorf("second run: %+v", b.Episode)
	}
	// Another session (or none named) spends its own budget, not s1's.
	if n := b.CountRun(Episode{Head: "c3"}, ""); n != 1 || b.Budget("s1").Runs != 2 || b.Episode.Runs != 3 || b.Last().Session != "" {
		t.Errorf("a run of no session: %d, %+v", n, b.Episode)
	}
	if !b.ReachedElsewhere("s2", 2) || b.ReachedElsewhere("s1", 2) || b.ReachedElsewhere("s2", 3) {
		t.Errorf("ReachedElsewhere: %+v", b.Episode)
	}
	b.FreshBudget("s1", "a new commit")
	if b.Budget("s1").Runs != 0 || b.Budget("").Runs != 1 || b.Episode.Base != gitEmptyTree || b.Episode.FirstRun != 1 || b.Episode.Reason != "a new commit" {
		t.Errorf("a fresh budget moved the episode's start or renewed another session's: %+v", b.Episode)
	}
	if err := b.RecordCheck("check:.:lint", CheckVerdict{Status: StatusFail, Run: 3}); err != nil {
		t.Fatal(err)
	}
	b.Settle("")
	if b.Episode != nil || len(b.Checks) != 0 || b.Last().Runs != 0 {
		t.Errorf("after Settle: %+v", b)
	}
	b.FreshBudget("s1", "no episode: nothing happens")
	if b.Episode != nil {
		t.Errorf("FreshBudget opened an episode")
	}
}

// gitEmptyTree stands for git's empty tree, where an episode without a
// commit begins.
const gitEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// The verified point of each branch: the latest wins, the oldest branch
// goes past MaxVerified, nothing is kept for no branch or no commit.
func TestVerifiedPoints(t *testing.T) {
	b := newBook()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.MarkVerified("main", "c1", t0)
	b.MarkVerified("main", "c2", t0.Add(time.Minute))
	b.MarkVerified("", "c3", t0)
	b.MarkVerified("feature", "", t0)
	if p, ok := b.VerifiedOn("main"); !ok || p.Commit != "c2" {
		t.Errorf("main = %+v, %v", p, ok)
	}
	if _, ok := b.VerifiedOn("feature"); ok || len(b.Verified) != 1 {
		t.Errorf("a point without a commit or branch was kept: %+v", b.Verified)
	}
	for i := range MaxVerified {
		b.MarkVerified(fmt.Sprintf("b%d", i), "c", t0.Add(time.Duration(i+2)*time.Minute))
	}
	if len(b.Verified) != MaxVerified {
		t.Fatalf("%d points kept, want %d", len(b.Verified), MaxVerified)
	}
	if _, ok := b.VerifiedOn("b0"); !ok {
		t.Error("a recent branch was dropped")
	}
	if _, ok := b.VerifiedOn("main"); ok {
		t.Error("the oldest branch was kept past the bound")
	}
}

// Clear starts over: no verdict, episode, interval or snapshot, while the
// verified points of the branches stay.
func TestClearStartsOver(t *testing.T) {
	b := bookWith(vA)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.LastFullPassAt = at
	b.Snapshot = &Snapshot{Run: 3, Ref: "r", Commit: "c"}
	b.Episode = &Episode{FirstRun: 2, Runs: 1}
	b.MarkVerified("main", "c0", at)
	b.Clear(at, "agent-gauntlet clean", nil)
	if b.Snapshot != nil || b.Episode != nil || !b.LastFullPassAt.IsZero() || len(b.Slots) != 0 {
		t.Errorf("after Clear: %+v", b)
	}
	if _, ok := b.VerifiedOn("main"); !ok {
		t.Error("Clear dropped a verified point")
	}
}

// Seeding keeps each slot's latest verdict, a pass too (a verification
// run does not ask a passed slot again), and the last run's snapshot.
func TestSeedPassesAndSnapshot(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &state.State{LastRunCompletedAt: at, Branch: "feature", Commit: "c1", WorkingTreeRef: "w1", RunNumber: 2, Scope: "local main",
		ReviewDefinitions: map[string]string{job: "d1"}}
	b := newBook()
	b.Seed(Legacy{Slots: []LegacySlot{{Job: job, Slot: 2, Adapter: "codex", Status: StatusPass, Run: 2}}, Run: 2}, st, at)
	if v := b.Slots[job][2]; v.Status != StatusPass || v.Adapter != "codex" || v.Run != 2 {
		t.Errorf("seeded pass = %+v", v)
	}
	if p, _ := b.Pending(t.TempDir(), "", nil); !p.Empty() || b.Episode != nil {
		t.Errorf("a pass was seeded as pending: %+v, %+v", p, b.Episode)
	}
	want := &Snapshot{Run: 2, Ref: "w1", Commit: "c1", Scope: "local main", Definitions: map[string]string{job: "d1"}}
	if !reflect.DeepEqual(b.Snapshot, want) {
		t.Errorf("snapshot = %+v, want %+v", b.Snapshot, want)
	}
}

// A change of the trusted configuration between two stops is told in
// every answer of the session that first saw it, and for NoticeWindow in
// every other session's too (a stop the agent runs itself under a session
// of its own cannot take it away); the first sight of a configuration is
// no change.
func TestSeeTrust(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	seenAt := func(key string, d time.Duration) TrustSeen { return TrustSeen{Key: key, Desc: key, At: t0.Add(d)} }
	b := NewBook()
	for i, step := range []struct {
		seen    TrustSeen
		session string
		told    bool
	}{
		{seenAt("person", 0), "s1", false},
		{seenAt("person", time.Minute), "s1", false},
		{seenAt("agent", 2*time.Minute), "s1", true},
		{seenAt("agent", 3*time.Minute), "s1", true},
		{seenAt("agent", 4*time.Minute), "", true},
		{seenAt("agent", 5*time.Minute), "decoy", true},
		{seenAt("agent", 6*time.Minute), "s2", true},
		{seenAt("agent", 2*time.Minute+NoticeWindow), "s2", false},
		{seenAt("agent", 2*time.Minute+NoticeWindow), "s1", true},
		{seenAt("person", 26*time.Hour), "s2", true},
		{seenAt("person", 51*time.Hour), "s3", false},
	} {
		c := b.SeeTrust(step.seen, step.session)
		if (c != nil) != step.told {
			t.Fatalf("step %d: change = %+v, want told %v", i, c, step.told)
		}
		if c != nil && c.To.Key != step.seen.Key {
			t.Errorf("step %d: change to %q, want %q", i, c.To.Key, step.seen.Key)
		}
	}
}

// What a full pass verified lives exactly as long as the interval it
// starts: recorded after a full pass, dropped by a failure or Clear, never
// recorded without a full pass.
func TestFullPassFollowsTheInterval(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	what := &FullPass{Ref: "r1", Config: "c1"}
	for _, tc := range []struct {
		name string
		step func(b *Book)
		want bool
	}{
		{"a full pass", func(b *Book) { b.Finish(at, true, true, false); b.PassedFull("env", what) }, true},
		{"no full pass", func(b *Book) { b.Finish(at, false, true, false); b.PassedFull("env", what) }, false},
		{"a failure since", func(b *Book) {
			b.Finish(at, true, true, false)
			b.PassedFull("env", what)
			b.Finish(at, false, false, true)
		}, false},
		{"a partial pass since", func(b *Book) {
			b.Finish(at, true, true, false)
			b.PassedFull("env", what)
			b.Finish(at, false, true, false)
		}, true},
		{"cleared since", func(b *Book) {
			b.Finish(at, true, true, false)
			b.PassedFull("env", what)
			b.Clear(at, "clean", nil)
		}, false},
		{"a full pass without a snapshot", func(b *Book) {
			b.Finish(at, true, true, false)
			b.PassedFull("env", what)
			b.Finish(at, true, true, false)
			b.PassedFull("env", nil)
		}, false},
	} {
		b := newBook()
		tc.step(b)
		if got := b.FullPass != nil; got != tc.want {
			t.Errorf("%s: full pass recorded %v, want %v (%+v)", tc.name, got, tc.want, b.FullPass)
		}
		if b.FullPass != nil && b.LastFullPassAt.IsZero() {
			t.Errorf("%s: what a pass verified is kept without its interval", tc.name)
		}
	}
}

// The ignore rules are seen part by part: a change names the parts that
// differ; what an older version recorded (no parts) is replaced without a
// notice; a change seen while an earlier one is still told joins it, so
// that a second edit cannot take the first one's notice away; once the
// notice window has passed, a new change stands alone.
func TestSeeExcludes(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	rules := func(d time.Duration, files map[string]string) TrustSeen {
		key := fmt.Sprint(files)
		return TrustSeen{Key: key, At: t0.Add(d), Files: files}
	}
	b := NewBook()
	b.Excludes = &TrustSeen{Key: "older version", At: t0}
	for i, step := range []struct {
		seen    TrustSeen
		session string
		changed []string
	}{
		{rules(0, map[string]string{"/x/info/exclude": "absent", ".gitignore": "a"}), "s1", nil},
		{rules(time.Minute, map[string]string{"/x/info/exclude": "absent", ".gitignore": "a"}), "s1", nil},
		{rules(2*time.Minute, map[string]string{"/x/info/exclude": "absent", ".gitignore": "a", "src/.gitignore": "b"}), "s1", []string{"src/.gitignore"}},
		{rules(3*time.Minute, map[string]string{"/x/info/exclude": "c", ".gitignore": "a", "src/.gitignore": "b"}), "s2", []string{"/x/info/exclude", "src/.gitignore"}},
		{rules(3*time.Minute+NoticeWindow, map[string]string{"/x/info/exclude": "c", ".gitignore": "a", "src/.gitignore": "b"}), "s2", []string{"/x/info/exclude", "src/.gitignore"}},
		{rules(3*time.Minute+NoticeWindow, map[string]string{"/x/info/exclude": "c", ".gitignore": "a", "src/.gitignore": "b"}), "s3", nil},
		{rules(4*time.Minute+NoticeWindow, map[string]string{"/x/info/exclude": "c", ".gitignore": "d", "src/.gitignore": "b"}), "s3", []string{".gitignore"}},
	} {
		c := b.SeeExcludes(step.seen, step.session)
		var got []string
		if c != nil {
			got = c.Changed()
		}
		if !slices.Equal(got, step.changed) {
			t.Fatalf("step %d: told %v, want %v", i, got, step.changed)
		}
	}
}

// TestTellIsToldByTheTrustChangeRule: a notice recorded by Tell is told by
// the rule SeeTrust tells by (delivered): to its session always, to any
// other for NoticeWindow; the same text is recorded once (its first
// telling stands), and the book keeps the newest MaxNotices and counts
// the ones it drops.
func TestTellIsToldByTheTrustChangeRule(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := NewBook()
	b.Tell("x", "own", at)
	b.Tell("x", "s1", at.Add(time.Hour))
	for _, c := range []struct {
		session string
		now     time.Time
		told    bool
	}{
		{"own", at, true}, {"s1", at.Add(time.Minute), true}, {"", at.Add(2 * NoticeWindow), true},
		{"s1", at.Add(NoticeWindow + time.Minute), false}, {"own", at.Add(2 * NoticeWindow), true},
	} {
		got := b.Told(c.session, c.now)
		if (len(got) == 1) != c.told || c.told && (got[0].Session != "own" || !got[0].At.Equal(at)) {
			t.Errorf("%q at %s: %+v, told %v", c.session, c.now, got, c.told)
		}
	}
	for i := range MaxNotices + 3 {
		b.Tell(fmt.Sprint(i), "own", at)
	}
	if n := len(b.Notices); n != MaxNotices || b.Notices[n-1].Text != fmt.Sprint(MaxNotices+2) {
		t.Errorf("kept %d notices, the last %q", n, b.Notices[n-1].Text)
	}
	// The four dropped (x and the three oldest) are counted, never silently
	// gone; a text told again is no change.
	if d := b.NoticesDropped; d == nil || d.Count != 4 || !d.Last.Equal(at) {
		t.Errorf("dropped: %+v, want 4 at %s", d, at)
	}
	if b.Tell(fmt.Sprint(MaxNotices+2), "s1", at) || !b.Tell("new", "s1", at) {
		t.Error("Tell reports a repeated text as recorded, or a new one as not")
	}
}

// TestSessionBudgets: an episode an older version recorded (every run in
// one budget, its last session's) is read as that session's budget alone,
// and counting goes on from it; past MaxSessionBudgets sessions the one
// counted least recently is dropped, never the one just counted.
func TestSessionBudgets(t *testing.T) {
	b := newBook()
	b.Episode = &Episode{Runs: 3, SessionID: "old", LastHead: "c1"}
	if got := b.Budget("old"); got != (SessionBudget{Session: "old", Runs: 3, LastHead: "c1"}) {
		t.Errorf("an older episode's budget = %+v", got)
	}
	if got := b.Budget("new"); got.Runs != 0 || got.LastHead != "" {
		t.Errorf("another session's budget in an older episode = %+v", got)
	}
	if n := b.CountRun(Episode{Head: "c2", SessionID: "new"}, ""); n != 1 || b.Budget("old").Runs != 3 {
		t.Errorf("counting a new session in an older episode: %d, %+v", n, b.Episode)
	}
	if n := b.CountRun(Episode{Head: "c2", SessionID: "old"}, ""); n != 4 {
		t.Errorf("counting the older episode's session: %d, %+v", n, b.Episode)
	}
	for i := range MaxSessionBudgets + 3 {
		b.CountRun(Episode{Head: "c3", SessionID: fmt.Sprint("s", i)}, "")
	}
	if len(b.Episode.Sessions) != MaxSessionBudgets || b.Last().Session != fmt.Sprint("s", MaxSessionBudgets+2) || b.Budget("old").Runs != 0 {
		t.Errorf("past the bound: %+v", b.Episode.Sessions)
	}
}
