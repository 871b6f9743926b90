package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// runs counts the lines of the ignored file a test's check appends to.
func runs(t *testing.T, root string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "runs.log"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

func gitIn(t *testing.T, root string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A run takes the passes the cache holds for exactly its input; without a
// version, or with NoCache, it takes none.
func TestExecuteRunCache(t *testing.T) {
	root := project(t, "sh -c 'echo ran >> ../runs.log'", "")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gauntlet_logs/\nruns.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(o Options) RunResult {
		t.Helper()
		o.Dir, o.Silent = root, true
		res := ExecuteRun(context.Background(), o)
		if res.Status != StatusPassed {
			t.Fatalf("status %s: %s", res.Status, res.ErrorMessage)
		}
		return res
	}
	run(Options{Version: "v1"})
	res := run(Options{Version: "v1"})
	if runs(t, root) != 1 || res.GatesCached != 1 || res.Gates[0].Cached == nil || res.Gates[0].Cached.Run != 1 {
		t.Fatalf("second run: %d runs, %+v", runs(t, root), res)
	}
	if want := Message(StatusPassed, "All 1 gates passed before on exactly this content (cached): none ran."); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
	if res := run(Options{Version: "v1", NoCache: true}); runs(t, root) != 2 || res.GatesCached != 0 {
		t.Fatalf("--no-cache: %d runs, %+v", runs(t, root), res)
	}
	if res := run(Options{}); runs(t, root) != 3 || res.GatesCached != 0 {
		t.Fatalf("no version: %d runs, %+v", runs(t, root), res)
	}
	if res := run(Options{Version: "v2"}); runs(t, root) != 4 || res.GatesCached != 0 {
		t.Fatalf("another version: %d runs, %+v", runs(t, root), res)
	}
}

// A gate that changes the work tree proves nothing about either tree: its
// pass is not recorded, so the tree it started from runs it again.
func TestCacheRecordsNothingWhenTheGatesMoveTheTree(t *testing.T) {
	root := project(t, "sh -c 'echo ran >> ../runs.log; if [ -f gen.txt ]; then rm gen.txt; else echo x > gen.txt; fi'", "")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gauntlet_logs/\nruns.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"})
		if res.Status != StatusPassed || res.GatesCached != 0 || runs(t, root) != i {
			t.Fatalf("run %d: %d runs, %+v", i, runs(t, root), res)
		}
	}
	records, err := ledger.Open(CacheDir(filepath.Join(root, ".git")), 0).Stats()
	if err != nil || records.Records != 0 {
		t.Fatalf("records %+v, %v", records, err)
	}
}

// Base results are keyed by the base commit's tree (content, not commit),
// the gate and the caller's extra inputs; they are never a run's pass.
func TestBaseResults(t *testing.T) {
	root := project(t, "make lint", "")
	first := gitIn(t, root, "rev-parse", "HEAD")
	gitIn(t, root, "commit", "-q", "--allow-empty", "-m", "same tree")
	same := gitIn(t, root, "rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(root, "src", "main.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "commit", "-q", "-am", "other tree")
	other := gitIn(t, root, "rev-parse", "HEAD")

	e := &execution{root: root}
	e.cache = &runCache{ledger: ledger.Open(filepath.Join(t.TempDir(), "cache"), 0), root: root,
		run: cache.Run{Version: "v1", BaseBranch: "main"}}
	b := e.baseResults()
	lint := &config.Check{Name: "lint", Command: "make lint", Cache: config.CacheTree}
	job := gate.Job{ID: "check:src:lint", Kind: gate.KindCheck, Name: "lint", EntryPoint: "src", WorkingDir: "src", Check: lint}
	type result struct{ Passed bool }
	b.Save(context.Background(), job, first, "a.go", result{Passed: false})
	var got result
	if !b.Load(context.Background(), job, first, "a.go", &got) || got.Passed {
		t.Fatal("the saved base result is not there")
	}
	if !b.Load(context.Background(), job, same, "a.go", &got) {
		t.Error("a commit with the same tree missed")
	}
	for name, miss := range map[string]func() bool{
		"another tree":  func() bool { return b.Load(context.Background(), job, other, "a.go", &got) },
		"another extra": func() bool { return b.Load(context.Background(), job, first, "b.go", &got) },
		"an unknown commit": func() bool {
			return b.Load(context.Background(), job, strings.Repeat("0", 40), "a.go", &got)
		},
		"another command": func() bool {
			j := job
			c := *lint
			c.Command = "make lint2"
			j.Check = &c
			return b.Load(context.Background(), j, first, "a.go", &got)
		},
		"a review": func() bool {
			j := job
			j.Kind, j.Check, j.Review = gate.KindReview, nil, &config.Review{Name: "lint"}
			return b.Load(context.Background(), j, first, "a.go", &got)
		},
	} {
		if miss() {
			t.Errorf("%s: hit", name)
		}
	}
	// The run's own lookup never takes a base result for a pass.
	keys, err := e.cache.keysOn(context.Background(), gitIn(t, root, "rev-parse", first+"^{tree}"), []gate.Job{job}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p cache.Proof
	if _, ok, _ := e.cache.ledger.Get(keys[job.ID], &p); ok {
		t.Fatal("a base result answers a run's lookup")
	}
	var none *BaseResults
	if none.Load(context.Background(), job, first, "", &got) {
		t.Fatal("no cache, yet a hit")
	}
	none.Save(context.Background(), job, first, "", got)
}

// memoRecords lists the keys of the changes memo in the cache of root.
func memoRecords(t *testing.T, root string) []string {
	t.Helper()
	dir := ChangesDir(filepath.Join(root, ".git"))
	entries, _ := os.ReadDir(dir)
	var keys []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var rec struct{ Key string }
		if json.Unmarshal(data, &rec) == nil && strings.Contains(rec.Key, changesTag) {
			keys = append(keys, rec.Key)
		}
	}
	return keys
}

// The changes of a local run are taken from the memo when the base, HEAD,
// the user's index and the work tree are what they were; any of them
// moving lists them anew. The previous snapshot commit is reused when the
// run would write the same.
func TestChangesMemo(t *testing.T) {
	root := project(t, "sh -c 'echo ran >> ../runs.log'", "")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gauntlet_logs/\nruns.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() RunResult {
		t.Helper()
		res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"})
		if res.Status != StatusPassed {
			t.Fatalf("status %s: %s", res.Status, res.ErrorMessage)
		}
		return res
	}
	ref := func() string {
		t.Helper()
		st, err := state.Read(logDir(root))
		if err != nil || st == nil {
			t.Fatalf("state: %v", err)
		}
		return st.WorkingTreeRef
	}
	first := run()
	keys := memoRecords(t, root)
	if len(keys) != 1 || first.ChangedFiles != 2 {
		t.Fatalf("memo records %d, changed files %d", len(keys), first.ChangedFiles)
	}
	firstRef := ref()
	// Forge the memo: the next run must take it as it is.
	l := ledger.Open(ChangesDir(filepath.Join(root, ".git")), 0)
	forged, _ := newMemoRecord(git.Changes{Files: []string{".gitignore", "src/new.txt", "src/forged.txt"}, BaseRef: "main"},
		[]string{"src/forged.txt"})
	if err := l.Put(keys[0], git.Changes{Files: []string{"src/other.txt"}}); err != nil {
		t.Fatal(err)
	}
	if res := run(); res.ChangedFiles != 2 {
		t.Fatalf("a record of another form was taken: %d changed files", res.ChangedFiles)
	}
	keys = memoRecords(t, root)
	if err := l.Put(keys[0], forged); err != nil {
		t.Fatal(err)
	}
	if res := run(); res.ChangedFiles != 3 || res.GatesCached != 1 {
		t.Fatalf("memo not taken: %d changed files, %d cached", res.ChangedFiles, res.GatesCached)
	}
	if got := ref(); got != firstRef {
		t.Errorf("nothing changed, yet a new snapshot commit %s (was %s)", got, firstRef)
	}
	// The user's index moves: listed anew.
	gitIn(t, root, "add", "src/new.txt")
	if res := run(); res.ChangedFiles != 2 {
		t.Fatalf("after git add: %d changed files", res.ChangedFiles)
	}
	// The work tree moves: listed anew, a new snapshot commit.
	if err := os.WriteFile(filepath.Join(root, "src", "other.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := run(); res.ChangedFiles != 3 {
		t.Fatalf("after a new file: %d changed files", res.ChangedFiles)
	}
	if got := ref(); got == firstRef {
		t.Error("the work tree changed, yet the old snapshot commit")
	}
	// HEAD moves: listed anew.
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "work")
	if res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"}); res.Status != StatusNoChanges {
		t.Fatalf("after a commit on main: %+v", res)
	}
}

// Submodules' work trees are in no snapshot: with a .gitmodules the cache
// stays off.
func TestCacheOffWithSubmodules(t *testing.T) {
	root := project(t, "sh -c 'echo ran >> ../runs.log'", "")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gauntlet_logs/\nruns.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitmodules"), []byte("[submodule \"x\"]\n\tpath = x\n\turl = ../x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"})
		if res.Status != StatusPassed || res.GatesCached != 0 || runs(t, root) != i {
			t.Fatalf("run %d: %d runs, %+v", i, runs(t, root), res)
		}
	}
	if !hasSubmodules(filepath.Join(root, "src"), "src/") || hasSubmodules(filepath.Join(root, "src"), "") {
		t.Error("hasSubmodules does not find the top level from a prefix")
	}
}

// A run that ends before it reads its changes (refused at the retry limit)
// waits for their listing before it records it: no race with the memo.
func TestChangesMemoEarlyEnd(t *testing.T) {
	root := project(t, "exit 1", "max_retries: 1\n")
	var last RunResult
	for range 4 {
		last = ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"})
	}
	if last.Status != StatusRetryLimitExceeded {
		t.Fatalf("last run: %s (%s)", last.Status, last.ErrorMessage)
	}
}

// The baselines' store keys a base result by the changed files the base
// run is given: those that are files at the base. Files new in the work
// tree do not change the key; one that the base has does.
func TestBaseStoreNarrowsChangedFiles(t *testing.T) {
	root := project(t, "make lint", "")
	base := gitIn(t, root, "rev-parse", "HEAD")
	e := &execution{root: root}
	e.cache = &runCache{ledger: ledger.Open(filepath.Join(t.TempDir(), "cache"), 0), root: root,
		run: cache.Run{Version: "v1", BaseBranch: "main"}}
	s := baseStore{b: e.baseResults(), take: true}
	lint := &config.Check{Name: "lint", Command: "make lint", Cache: config.CacheTree, Baseline: true}
	req := func(changed ...string) baseline.Request {
		return baseline.Request{Commit: base, BaseBranch: "main", Job: gate.Job{ID: "check:src:lint", Kind: gate.KindCheck,
			Name: "lint", EntryPoint: "src", WorkingDir: "src", Check: lint, Changed: changed}}
	}
	s.Save(context.Background(), req("src/main.txt", "src/new.txt"), baseline.Result{Passed: true})
	for _, c := range []struct {
		changed []string
		hit     bool
	}{
		{[]string{"src/main.txt", "src/new.txt"}, true},
		{[]string{"src/main.txt", "src/new.txt", "src/newer.txt"}, true},
		{[]string{"src/main.txt"}, true},
		{[]string{"src/new.txt"}, false},
		{[]string{"src", "src/main.txt"}, true}, // a directory at the base is no file
	} {
		if _, ok := s.Load(context.Background(), req(c.changed...)); ok != c.hit {
			t.Errorf("changed %q: hit %v, want %v", c.changed, ok, c.hit)
		}
	}
	if _, ok := (baseStore{b: e.baseResults()}).Load(context.Background(), req("src/main.txt")); ok {
		t.Error("--no-cache took a base result")
	}
}

func TestMemoRecord(t *testing.T) {
	ch := git.Changes{Files: []string{"a b.txt", "dir/ü.go", "gone.txt"}, BaseRef: "main", Warnings: []string{"w"}}
	rec, ok := newMemoRecord(ch, []string{"gone.txt"})
	if !ok || !rec.Complete {
		t.Fatal("not recorded")
	}
	if got := rec.changes(); !slices.Equal(got.Files, ch.Files) || got.BaseRef != "main" || !slices.Equal(got.Warnings, ch.Warnings) {
		t.Fatalf("round trip: %+v", got)
	}
	if !slices.Equal(lines(rec.Absent), []string{"gone.txt"}) || lines("") != nil {
		t.Fatalf("absent %q", rec.Absent)
	}
	for _, bad := range []string{"a\nb", "c\rd"} {
		if _, ok := newMemoRecord(git.Changes{Files: []string{bad}}, nil); ok {
			t.Errorf("%q recorded", bad)
		}
	}
}
