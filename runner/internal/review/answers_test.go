package review

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// memAnswers is an Answers in memory.
type memAnswers struct {
	mu   sync.Mutex
	kept map[string]StoredAnswer
	gets int
}

func (m *memAnswers) key(adapter, model string, slot int, stdin string) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s", adapter, model, slot, stdin)
}

func (m *memAnswers) Answer(adapter, model string, slot int, stdin string) (StoredAnswer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gets++
	a, ok := m.kept[m.key(adapter, model, slot, stdin)]
	return a, ok
}

func (m *memAnswers) Keep(adapter, model string, slot int, stdin string, a StoredAnswer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kept == nil {
		m.kept = map[string]StoredAnswer{}
	}
	m.kept[m.key(adapter, model, slot, stdin)] = a
}

const unusedVarAnswer = `{"status":"fail","violations":[{"file":"src/a.go","line":2,"issue":"x is unused","fix":"remove it","priority":"high","status":"new"}]}`

// A question asked before, word for word, of the same adapter and model is
// answered from the cache: no reviewer runs, no adapter is even checked,
// and the verdict is the one the answer gives (a failure stays a failure).
func TestAnswersAreNotPaidTwice(t *testing.T) {
	for _, answer := range []string{unusedVarAnswer, `{"status":"pass","message":"fine"}`} {
		job, env := setup(t, []string{"claude", "codex"}, 2, true)
		answers := &memAnswers{}
		f := &fakeCLIs{replies: map[string][]reply{"claude": {{stdout: answer}}, "codex": {{stdout: answer}}}}
		first := newSession(f.deps(testDiff)).WithAnswers(answers).Run(context.Background(), job, env)
		if len(f.calls) != 2 || len(answers.kept) != 2 {
			t.Fatalf("first run: %d calls, %d answers kept", len(f.calls), len(answers.kept))
		}
		g := &fakeCLIs{missing: map[string]bool{"claude": true, "codex": true}}
		env.RunNumber++
		second := newSession(g.deps(testDiff)).WithAnswers(answers).Run(context.Background(), job, env)
		if len(g.calls) != 0 {
			t.Fatalf("second run asked again: %v", g.calls)
		}
		if second.Status != first.Status || second.Message != first.Message || second.ErrorCount != first.ErrorCount {
			t.Fatalf("second run %s %q (%d), first %s %q (%d)", second.Status, second.Message, second.ErrorCount,
				first.Status, first.Message, first.ErrorCount)
		}
		for _, s := range second.Slots {
			if log := readFile(t, s.LogPath); !strings.Contains(log, "from the result cache") {
				t.Errorf("slot log does not say where the answer came from:\n%s", log)
			}
		}
	}
}

// Another diff, another model, cache: false, or an answer that reached no
// verdict: the reviewer is asked.
func TestAnswersOnlyForTheExactQuestion(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 1, false)
	answers := &memAnswers{}
	f := &fakeCLIs{}
	newSession(f.deps(testDiff)).WithAnswers(answers).Run(context.Background(), job, env)
	asked := func(what string, job gate.Job, diff string, want int) {
		t.Helper()
		f := &fakeCLIs{}
		newSession(f.deps(diff)).WithAnswers(answers).Run(context.Background(), job, env)
		if len(f.calls) != want {
			t.Errorf("%s: %d calls, want %d", what, len(f.calls), want)
		}
	}
	asked("the same question", job, testDiff, 0)
	asked("another diff", job, strings.Replace(testDiff, "var y = 2", "var y = 3", 1), 1)
	other := job
	rv := *job.Review
	rv.Model = "opus"
	other.Review = &rv
	asked("another model", other, testDiff, 1)
	off := job
	rvOff := *job.Review
	rvOff.Cache = config.CacheOff
	off.Review = &rvOff
	asked("cache: false", off, testDiff, 1)

	bad := &memAnswers{}
	job2, env2 := setup(t, []string{"claude"}, 1, false)
	g := &fakeCLIs{replies: map[string][]reply{"claude": {{stdout: "no JSON here"}}}}
	if res := newSession(g.deps(testDiff)).WithAnswers(bad).Run(context.Background(), job2, env2); res.Status != gate.StatusError {
		t.Fatalf("status %s", res.Status)
	}
	h := &fakeCLIs{replies: map[string][]reply{"claude": {{stdout: "", exit: 1}}}}
	newSession(h.deps(testDiff)).WithAnswers(bad).Run(context.Background(), job2, env2)
	if len(bad.kept) != 0 {
		t.Fatalf("kept answers without a verdict: %v", bad.kept)
	}
}

// num_reviews asks one question several times on purpose: the slots of a
// run never share an answer, each later run reuses each slot's own.
func TestAnswersPerSlot(t *testing.T) {
	job, env := setup(t, []string{"claude"}, 3, false)
	answers := &memAnswers{}
	f := &fakeCLIs{}
	newSession(f.deps(testDiff)).WithAnswers(answers).Run(context.Background(), job, env)
	if len(f.calls) != 3 || len(answers.kept) != 3 {
		t.Fatalf("%d calls, %d answers kept; want 3 and 3", len(f.calls), len(answers.kept))
	}
	g := &fakeCLIs{}
	newSession(g.deps(testDiff)).WithAnswers(answers).Run(context.Background(), job, env)
	if len(g.calls) != 0 {
		t.Fatalf("the next run asked %d times", len(g.calls))
	}
}
