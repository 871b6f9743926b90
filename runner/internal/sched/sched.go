// Package sched runs a run's jobs: preflight
// first, then a parallel lane and a sequential lane side by side when
// parallelism is allowed, or everything in order otherwise; fail_fast stops
// the sequential lane and a canceled context stops everything.
package sched

import (
	"context"
	"fmt"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// RunFunc runs one job.
type RunFunc func(ctx context.Context, job gate.Job, env gate.Env) gate.Result

// Reporter is told when a job starts and ends (console lines, debug log).
type Reporter interface {
	Start(jobID string)
	Result(r gate.Result)
}

// Options configure Run.
type Options struct {
	// AllowParallel lets jobs marked Parallel run concurrently with each
	// other and with the sequential lane.
	AllowParallel bool
	// Runners run the jobs of each gate kind; every kind of the jobs has one.
	Runners map[gate.Kind]RunFunc
	// Preflight, when set, checks a job before anything runs: a non-empty
	// message fails the job. PreflightResult turns it into the job's result.
	Preflight       func(ctx context.Context, job gate.Job, env gate.Env) string
	PreflightResult func(job gate.Job, env gate.Env, msg string) gate.Result
	// Report receives start and result events; it must be safe for
	// concurrent use.
	Report Reporter
}

// safeRun runs one job, turning a panic into an error result (a panic in
// the parallel lane would otherwise end the process).
func safeRun(ctx context.Context, run RunFunc, job gate.Job, env gate.Env) (r gate.Result) {
	defer func() {
		if p := recover(); p != nil {
			r = gate.Result{JobID: job.ID, Status: gate.StatusError, ErrorCount: 1,
				Message: fmt.Sprintf("Execution failed: %v", p)}
		}
	}()
	return run(ctx, job, env)
}

// Messages of jobs that were not started.
const (
	msgNotRunFailFast    = "not run: fail_fast gate %s did not pass"
	msgNotRunInterrupted = "not run: the run was interrupted"
)

// Run runs jobs and returns one result per job, in job order. Jobs never
// started (after a fail_fast check that did not pass, or once ctx ended)
// get a gate.StatusNotRun result saying why, reported like the others.
func Run(ctx context.Context, jobs []gate.Job, env gate.Env, o Options) []gate.Result {
	results := make([]*gate.Result, len(jobs))
	var mu sync.Mutex
	stopped := false
	stoppedBy := ""
	stop := func(id string) {
		mu.Lock()
		if !stopped {
			stopped, stoppedBy = true, id
		}
		mu.Unlock()
	}
	isStopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return stopped || ctx.Err() != nil
	}

	// Preflight, sequentially in job order.
	runnable := make([]bool, len(jobs))
	for i, job := range jobs {
		if isStopped() {
			break
		}
		if o.Preflight != nil {
			if msg := o.Preflight(ctx, job, env); msg != "" {
				r := o.PreflightResult(job, env, msg)
				results[i] = &r
				if o.Report != nil {
					o.Report.Result(r)
				}
				if job.FailFast() {
					stop(job.ID)
				}
				continue
			}
		}
		runnable[i] = true
	}

	runOne := func(i int) {
		job := jobs[i]
		if o.Report != nil {
			o.Report.Start(job.ID)
		}
		r := safeRun(ctx, o.Runners[job.Kind], job, env)
		if r.JobID == "" {
			r.JobID = job.ID
		}
		mu.Lock()
		results[i] = &r
		mu.Unlock()
		if o.Report != nil {
			o.Report.Result(r)
		}
		if r.Status.Failed() && job.FailFast() {
			stop(job.ID)
		}
	}

	var wg sync.WaitGroup
	var sequential []int
	for i, job := range jobs {
		if !runnable[i] {
			continue
		}
		if o.AllowParallel && job.Parallel {
			if isStopped() {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				runOne(i)
			}()
			continue
		}
		sequential = append(sequential, i)
	}
	for _, i := range sequential {
		if isStopped() {
			break
		}
		runOne(i)
	}
	wg.Wait()

	out := make([]gate.Result, len(jobs))
	for i, r := range results {
		if r != nil {
			out[i] = *r
			continue
		}
		msg := msgNotRunInterrupted
		if stoppedBy != "" {
			msg = fmt.Sprintf(msgNotRunFailFast, stoppedBy)
		}
		out[i] = gate.Result{JobID: jobs[i].ID, Status: gate.StatusNotRun, Message: msg}
		if o.Report != nil {
			o.Report.Result(out[i])
		}
	}
	return out
}
