package sched

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// recorder records events in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Start(id string) { r.add("start " + id) }
func (r *recorder) Result(res gate.Result) {
	r.add(string(res.Status) + " " + res.JobID)
}
func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func check(id string, parallel, failFast bool) gate.Job {
	return gate.Job{ID: id, Kind: gate.KindCheck, Name: id, Parallel: parallel, Check: &config.Check{Name: id, FailFast: failFast, Parallel: parallel}}
}

func TestSequentialOrderAndFailFast(t *testing.T) {
	rec := &recorder{}
	status := map[string]gate.Status{"a": gate.StatusPass, "b": gate.StatusFail, "c": gate.StatusPass}
	run := func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
		return gate.Result{JobID: j.ID, Status: status[j.ID]}
	}
	jobs := []gate.Job{check("a", true, false), check("b", false, true), check("c", false, false)}
	res := Run(context.Background(), jobs, gate.Env{}, Options{AllowParallel: false, Runners: checks(run), Report: rec})
	want := []string{"start a", "pass a", "start b", "fail b", "not_run c"}
	if !slices.Equal(rec.events, want) || len(res) != 3 {
		t.Fatalf("events %q results %d", rec.events, len(res))
	}
	if res[2].Status != gate.StatusNotRun || res[2].Message != "not run: fail_fast gate b did not pass" {
		t.Errorf("result of c = %+v", res[2])
	}
}

// With parallelism allowed, a parallel job runs while the sequential lane
// runs: the parallel job blocks until the sequential job has started.
func TestParallelLaneRunsBesideSequential(t *testing.T) {
	seqStarted := make(chan struct{})
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	run := func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
		switch j.ID {
		case "par":
			<-seqStarted
			note("par done")
		case "seq":
			close(seqStarted)
			note("seq done")
		}
		return gate.Result{JobID: j.ID, Status: gate.StatusPass}
	}
	jobs := []gate.Job{check("par", true, false), check("seq", false, false)}
	res := Run(context.Background(), jobs, gate.Env{}, Options{AllowParallel: true, Runners: checks(run)})
	if len(res) != 2 || res[0].JobID != "par" || res[1].JobID != "seq" {
		t.Fatalf("results %+v", res)
	}
}

func TestPreflightFailFastStopsEverything(t *testing.T) {
	rec := &recorder{}
	ran := false
	run := func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
		ran = true
		return gate.Result{Status: gate.StatusPass}
	}
	jobs := []gate.Job{check("a", false, true), check("b", false, false)}
	res := Run(context.Background(), jobs, gate.Env{}, Options{
		Runners: checks(run), Report: rec,
		Preflight: func(_ context.Context, j gate.Job, _ gate.Env) string {
			if j.ID == "a" {
				return "Missing command: x"
			}
			return ""
		},
		PreflightResult: func(j gate.Job, _ gate.Env, msg string) gate.Result {
			return gate.Result{JobID: j.ID, Status: gate.StatusError, Message: msg}
		},
	})
	if ran || len(res) != 2 || res[0].Message != "Missing command: x" ||
		res[1].Status != gate.StatusNotRun || res[1].Message != "not run: fail_fast gate a did not pass" {
		t.Fatalf("ran=%v results=%+v", ran, res)
	}
}

func TestCanceledContextStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	run := func(context.Context, gate.Job, gate.Env) gate.Result { n++; return gate.Result{} }
	res := Run(ctx, []gate.Job{check("a", false, false), check("b", true, false)}, gate.Env{}, Options{AllowParallel: true, Runners: checks(run)})
	if n != 0 {
		t.Fatalf("%d jobs ran", n)
	}
	for _, r := range res {
		if r.Status != gate.StatusNotRun || r.Message != "not run: the run was interrupted" {
			t.Errorf("result %+v", r)
		}
	}
}

func TestReviewDispatch(t *testing.T) {
	var kinds []gate.Kind
	run := func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
		kinds = append(kinds, j.Kind)
		return gate.Result{Status: gate.StatusPass}
	}
	jobs := []gate.Job{check("a", false, false), {ID: "review:.:q", Kind: gate.KindReview, Review: &config.Review{}}}
	Run(context.Background(), jobs, gate.Env{}, Options{Runners: map[gate.Kind]RunFunc{gate.KindCheck: run, gate.KindReview: func(ctx context.Context, j gate.Job, e gate.Env) gate.Result {
		kinds = append(kinds, "R")
		return gate.Result{Status: gate.StatusPass}
	}}})
	if !slices.Equal(kinds, []gate.Kind{gate.KindCheck, "R"}) {
		t.Fatalf("kinds %q", kinds)
	}
}

func TestPanicBecomesError(t *testing.T) {
	run := func(context.Context, gate.Job, gate.Env) gate.Result { panic("boom") }
	res := Run(context.Background(), []gate.Job{check("a", true, false)}, gate.Env{}, Options{AllowParallel: true, Runners: checks(run)})
	if len(res) != 1 || res[0].Status != gate.StatusError || res[0].Message != "Execution failed: boom" {
		t.Fatalf("results %+v", res)
	}
}

// checks runs every check job with run.
func checks(run RunFunc) map[gate.Kind]RunFunc { return map[gate.Kind]RunFunc{gate.KindCheck: run} }
