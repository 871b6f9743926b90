package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/cache"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
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
	records, err := ledger.Open(filepath.Join(root, ".git"), filepath.Join("agent-gauntlet", "cache"), 0).Stats()
	if err != nil || records.Records != 0 {
		t.Fatalf("records %+v, %v", records, err)
	}
}

// memoRecords lists the keys of the changes memo in the cache of root.
func memoRecords(t *testing.T, root string) []string {
	t.Helper()
	dir := cache.ChangesDir(filepath.Join(root, ".git"))
	entries, _ := os.ReadDir(dir)
	var keys []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var rec struct{ Key string }
		head, _, _ := bytes.Cut(data, []byte{'\n'}) // a raw record's header line (ledger.PutRaw)
		if json.Unmarshal(head, &rec) == nil && strings.Contains(rec.Key, "agent-gauntlet local changes") {
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
	l := ledger.Open(filepath.Join(root, ".git"), filepath.Join("agent-gauntlet", "changes"), 0)
	files := ".gitignore\nsrc/new.txt\nsrc/forged.txt"
	forged := fmt.Appendf(nil, `{"files_bytes":%d,"base_ref":"main","warnings":null,"complete":true}`+"\n%s\nsrc/forged.txt", len(files), files)
	if err := l.Put(keys[0], git.Changes{Files: []string{"src/other.txt"}}); err != nil {
		t.Fatal(err)
	}
	if res := run(); res.ChangedFiles != 2 {
		t.Fatalf("a record of another form was taken: %d changed files", res.ChangedFiles)
	}
	keys = memoRecords(t, root)
	if err := l.PutRaw(keys[0], forged); err != nil {
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

// A submodule's work tree is in the keys: its passes are cached, and an
// edit inside it (the outer repository sees the same gitlink) runs the
// gates again.
func TestCacheSeesSubmodules(t *testing.T) {
	root := project(t, "sh -c 'echo ran >> ../runs.log; grep -q good ../sub/s.txt'", "")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gauntlet_logs/\nruns.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := t.TempDir()
	gitIn(t, sub, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(sub, "s.txt"), []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, sub, "add", "-A")
	gitIn(t, sub, "commit", "-q", "-m", "sub")
	gitIn(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	gitIn(t, root, "commit", "-q", "-m", "submodule")
	run := func(want GauntletStatus, cached, ran int) {
		t.Helper()
		res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1"})
		if res.Status != want || res.GatesCached != cached || runs(t, root) != ran {
			t.Fatalf("%d runs, %+v", runs(t, root), res)
		}
	}
	run(StatusPassed, 0, 1)
	run(StatusPassed, 1, 1)
	if err := os.WriteFile(filepath.Join(root, "sub", "s.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(StatusFailed, 0, 2)
}

// A run that ends before it reads its changes (an agent's run refused at
// the retry limit) waits for their listing before it records it: no race
// with the memo.
func TestChangesMemoEarlyEnd(t *testing.T) {
	root := project(t, "exit 1", "max_retries: 1\n")
	var last RunResult
	for range 4 {
		last = ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Version: "v1", Agent: true})
	}
	if last.Status != StatusRetryLimitExceeded {
		t.Fatalf("last run: %s (%s)", last.Status, last.ErrorMessage)
	}
}
