package baseline

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// memStore is a Store in memory, keyed as a result cache must key base
// results (commit, check definition, changed files, base branch), holding
// each result in its stored JSON form.
type memStore struct {
	m     map[string][]byte
	loads int
}

func (s *memStore) key(req Request) string {
	c := req.Job.Check
	return strings.Join([]string{req.Commit, c.Command, req.Job.WorkingDir, c.Timeout.String(),
		strings.Join(req.Job.Changed, "\x00"), req.BaseBranch}, "\x01")
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
	fp, _ := Scan(strings.NewReader("a.go:3:1: old problem\nok\n"), 1, NewNormalizer("/elsewhere"))
	next := &closingFake{fakeSource: fakeSource{res: Result{Fingerprint: fp, Note: NoteWorktree}}}
	store := &memStore{m: map[string][]byte{}}
	src := Cached{Store: store, Next: next}
	judge := func() (gate.Status, string) {
		log := logFile(t)
		out := "./a.go:7:1: old problem\n"
		if _, err := log.WriteString(out); err != nil {
			t.Fatal(err)
		}
		j := &Judge{Source: src, BaseBranch: "main", Commit: func(context.Context) (string, error) { return "0123456789abcdef", nil }}
		f := check.Failure{Job: checkJob("lint", ".", []string{"a.go"}, nil), Env: gate.Env{Root: "/w"}, Log: log,
			Outcome: check.Outcome{Status: gate.StatusFail, Message: "Exited with code 1", ExitCode: 1, Output: []check.Span{{Off: 0, Len: int64(len(out))}}}}
		status, _, _ := j.Failure(context.Background(), f)
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
	if !strings.Contains(log, "exits with code 1, from the result cache; its error lines (normalised): ---\n  a.go:N:N: old problem\n") {
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

// The stored form of a result reads back as the same result.
func TestResultJSON(t *testing.T) {
	fp, _ := Scan(strings.NewReader("x.go:1: error: one\ny.go:2: error: two\n"), 3, NewNormalizer("/r"))
	for _, in := range []Result{{Passed: true}, {Fingerprint: fp}, {Fingerprint: Fingerprint{ExitCode: 2, Overflow: true, lines: map[uint64]string{}}}} {
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out Result
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if out.Passed != in.Passed || (!in.Passed && (!reflect.DeepEqual(out.Fingerprint.lines, in.Fingerprint.lines) ||
			out.Fingerprint.ExitCode != in.Fingerprint.ExitCode || out.Fingerprint.Overflow != in.Fingerprint.Overflow)) {
			t.Errorf("%s read back as %+v, want %+v", data, out, in)
		}
		if again, _ := json.Marshal(out); string(again) != string(data) {
			t.Errorf("not stable: %s then %s", data, again)
		}
	}
	if err := json.Unmarshal([]byte(`{"passed":false,"lines":"x"}`), new(Result)); err == nil {
		t.Errorf("a malformed stored result read")
	}
}
