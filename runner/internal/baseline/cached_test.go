package baseline

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// memStore is a Store in memory, keyed as a result cache must key base
// results (commit, check definition, changed files, base branch, world), holding
// each result in its stored JSON form.
type memStore struct {
	m     map[string][]byte
	loads int
}

func (s *memStore) key(req Request) string {
	c := req.Job.Check
	return strings.Join([]string{req.Commit, c.Command, req.Job.WorkingDir, c.Timeout.String(),
		strings.Join(req.Job.Changed, "\x00"), req.BaseBranch, req.World}, "\x01")
}

func (s *memStore) Load(_ context.Context, req Request) (Result, bool) {
	s.loads++
	data, ok := s.m[s.key(req)]
	if !ok {
		return Result{}, false
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return Result{}, false
	}
	return r, true
}

func (s *memStore) Save(_ context.Context, req Request, res Result) {
	data, err := json.Marshal(res)
	if err != nil {
		panic(err)
	}
	s.m[s.key(req)] = data
}

// closingFake is a fakeSource with a Close.
type closingFake struct {
	fakeSource
	closed bool
}

func (c *closingFake) Close() { c.closed = true }

// A base result comes from the store when the same check was judged on
// the same base before: the worktree source is not asked, the verdict is
// the same, and the log says where the result came from. A miss asks the
// worktree source and saves its answer; an error is never saved.
func TestCachedSource(t *testing.T) {
	next := &closingFake{fakeSource: fakeSource{res: Result{ExitCode: 1, Findings: parsed("a.go:7:1: old problem\nok\n"), Note: NoteWorktree}}}
	store := &memStore{m: map[string][]byte{}}
	src := Cached{Store: store, Next: next}
	judge := func() (gate.Status, string) {
		log := logFile(t)
		out := "./a.go:7:1: old problem\n"
		if _, err := log.WriteString(out); err != nil {
			t.Fatal(err)
		}
		j := &Judge{Source: src, BaseBranch: "main", Commit: func(context.Context) (string, error) { return "0123456789abcdef", nil }, Diff: noDiff}
		f := check.Failure{Job: checkJob("lint", ".", []string{"a.go"}, nil), Env: gate.Env{Root: "/w"}, Log: log, Findings: parsed(out),
			Outcome: check.Outcome{Status: gate.StatusFail, Message: "Exited with code 1", ExitCode: 1, Output: []check.Span{{Off: 0, Len: int64(len(out))}}}}
		status := j.Failure(context.Background(), f).Status
		data, _ := os.ReadFile(log.Name())
		return status, string(data)
	}
	if st, _ := judge(); st != gate.StatusPreExisting || len(next.reqs) != 1 || len(store.m) != 1 {
		t.Fatalf("miss: status %s, worktree asked %d times, %d saved", st, len(next.reqs), len(store.m))
	}
	st, log := judge()
	if st != gate.StatusPreExisting || len(next.reqs) != 1 || store.loads != 2 {
		t.Fatalf("hit: status %s, worktree asked %d times, store asked %d times", st, len(next.reqs), store.loads)
	}
	if !strings.Contains(log, "exits with code 1, from the result cache; what it reported: ---\n\n--- Findings ---\nRead as govet: 1 to fix.\n  a.go:7:1: error: old problem\n") {
		t.Errorf("the log does not say the base result came from the cache:\n%s", log)
	}
	src.Close()
	if !next.closed {
		t.Errorf("Close did not close the worktree source")
	}

	// An error of the worktree source is not saved.
	failing := &closingFake{fakeSource: fakeSource{err: os.ErrNotExist}}
	empty := &memStore{m: map[string][]byte{}}
	if _, err := (Cached{Store: empty, Next: failing}).Base(context.Background(), Request{Job: checkJob("lint", ".", nil, nil), Log: logFile(t)}); err == nil || len(empty.m) != 0 {
		t.Errorf("error %v, saved %d", err, len(empty.m))
	}
}

// The stored form of a result reads back as the same result; a result
// stored in the form before findings is a miss.
func TestResultJSON(t *testing.T) {
	for _, in := range []Result{{Passed: true}, {ExitCode: 3, Findings: parsed("x.go:1:2: one\ny.go:2:1: two\n")}, {ExitCode: 2}, {ExitCode: 1, Unverified: []string{".venv was changed"}}} {
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out Result
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("%s read back as %+v, want %+v", data, out, in)
		}
		if again, _ := json.Marshal(out); string(again) != string(data) {
			t.Errorf("not stable: %s then %s", data, again)
		}
	}
	for _, old := range []string{`{"passed":false,"lines":"x"}`, `{"passed":false,"exit_code":1,"lines":[{"h":1,"t":"x"}]}`} {
		if err := json.Unmarshal([]byte(old), new(Result)); err == nil {
			t.Errorf("%s read", old)
		}
	}
}

// parsed is what a go vet run that printed out reports.
func parsed(out string) findings.Result {
	return findings.Parse(findings.Spec{Format: "govet", Dir: ".", Failed: true}, strings.NewReader(out))
}

// noDiff is a change that touches no line.
func noDiff(context.Context, string, string) (string, bool, error) { return "", false, nil }
