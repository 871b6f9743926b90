package run

import (
	"context"
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// verdictRecorder records gate results of the run in the verdict book as
// they come (see verdictsOf), those given together in one write; nil for a
// run that records nothing (a look at a past commit). Results that all
// came from the result cache are held in the book in memory (Record.hold)
// and written with the run's next write, its end's at the latest: a stop
// with nothing new writes its book once, and what a lost write of theirs
// would have recorded the cache holds. Once the run's context ends
// (interrupted, the hook's deadline) nothing more is recorded: a gate cut
// short reached no verdict.
func verdictRecorder(ctx context.Context, s *services, p *project, b *begun) func(...gate.Result) {
	if p.pastCommit() || b.rec == nil {
		return nil
	}
	return func(results ...gate.Result) {
		if ctx.Err() != nil {
			return
		}
		recordResults(s, b.rec, b.runNumber, p.env, results)
	}
}

// recordResults records in rec the verdicts of results of run, given
// together (verdictRecorder): written at once, or held when each of them
// came from the result cache.
func recordResults(s *services, rec *Record, run int, env string, results []gate.Result) {
	recordVerdicts(s, rec, run, env, results, true)
}

// recordVerdicts is recordResults; mayHold false writes every verdict at
// once.
func recordVerdicts(s *services, rec *Record, run int, env string, results []gate.Result, mayHold bool) {
	now := s.now()
	type found struct {
		job   string
		check *verdicts.CheckVerdict
		slots map[int]verdicts.SlotVerdict
	}
	var all []found
	held := mayHold
	for _, res := range results {
		if check, slots := verdictsOf(res, run, now, env); check != nil || len(slots) > 0 {
			all = append(all, found{res.JobID, check, slots})
			held = held && res.Cached != nil
		}
	}
	if len(all) == 0 {
		return
	}
	write := rec.save
	if held {
		write = rec.hold
	}
	write(s, func(bk *verdicts.Book) error {
		for _, f := range all {
			if f.check != nil {
				if err := bk.RecordCheck(f.job, *f.check); err != nil {
					return err
				}
			}
			for i, v := range f.slots {
				if err := bk.RecordSlot(f.job, i, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// verdictsOf are the verdicts of a gate result of run at: a check's (pass,
// pre-existing as pass, fail, error) or a review's slots that reached one
// (pass, fail with the violations still open, by slot index). A check that
// did not run, or could not for reasons the agent cannot fix
// (gate.Result.Infrastructure), a slot that erred or was skipped for a
// prior pass, reach none: the verdict before stands.
func verdictsOf(res gate.Result, run int, at time.Time, env string) (*verdicts.CheckVerdict, map[int]verdicts.SlotVerdict) {
	if gate.KindOf(res.JobID) == gate.KindCheck {
		var st verdicts.Status
		switch {
		case res.Status == gate.StatusPass || res.Status == gate.StatusPreExisting:
			st = verdicts.StatusPass
		case res.Status == gate.StatusFail:
			st = verdicts.StatusFail
		case res.Status == gate.StatusError && !res.Infrastructure:
			st = verdicts.StatusError
		default:
			return nil, nil
		}
		return &verdicts.CheckVerdict{Status: st, Run: run, At: at, Log: baseName(res.LogPath), Env: env}, nil
	}
	slots := map[int]verdicts.SlotVerdict{}
	for _, sl := range res.Slots {
		v := verdicts.SlotVerdict{Adapter: sl.Adapter, Run: run, At: at, JSON: baseName(sl.JSONPath), Env: env}
		switch sl.Status {
		case gate.StatusPass:
			v.Status = verdicts.StatusPass
			for _, viol := range sl.BelowThreshold {
				v.BelowThreshold = append(v.BelowThreshold, bookViolation(viol))
			}
		case gate.StatusFail:
			v.Status = verdicts.StatusFail
			v.Violations = make([]verdicts.Violation, 0, len(sl.Open))
			for _, viol := range sl.Open {
				v.Violations = append(v.Violations, bookViolation(viol))
			}
		default:
			continue
		}
		slots[sl.Index] = v
	}
	return nil, slots
}

// baseName is the base name of path, "" for "".
func baseName(path string) string {
	if path == "" {
		return ""
	}
	return filepath.Base(path)
}

// previousFailures are the failures the run's gates verify, from what the
// book left pending (of gate -g only, when given): the failed checks, the
// failed slots with their violations (new, or fixed by the agent's word),
// the slots that passed in the run's environment, and the violations the agent skipped. Nil outside
// a verification run.
func previousFailures(s *services, p *project, b *begun) *gate.Pending {
	if !b.verification {
		return nil
	}
	keep := func(job string) bool { return p.opts.Gate == "" || gate.IsOfGate(job, p.opts.Gate) }
	out := &gate.Pending{Checks: map[string]bool{}, Slots: map[string]map[int][]gate.Violation{},
		Passed: map[string]map[int]gate.PassedSlot{}, Skipped: map[string]map[int][]gate.Violation{}}
	for job := range b.pending.Checks {
		if keep(job) {
			out.Checks[job] = true
		}
	}
	for job, slots := range b.pending.Slots {
		if !keep(job) {
			continue
		}
		out.Slots[job] = map[int][]gate.Violation{}
		for index, vs := range slots {
			list := make([]gate.Violation, 0, len(vs))
			for _, v := range vs {
				list = append(list, GateViolation(v))
			}
			out.Slots[job][index] = list
		}
	}
	for _, sv := range b.pending.Skipped {
		if !keep(sv.Job) {
			continue
		}
		if out.Skipped[sv.Job] == nil {
			out.Skipped[sv.Job] = map[int][]gate.Violation{}
		}
		out.Skipped[sv.Job][sv.Slot] = append(out.Skipped[sv.Job][sv.Slot], GateViolation(sv.Annotated))
	}
	env := p.env
	for job, slots := range b.rec.Book.Slots {
		if !keep(job) || !b.jobs.has(job) {
			continue
		}
		for index, v := range slots {
			// A pass reached in another environment is not this run's to
			// skip a slot for.
			if v.Status != verdicts.StatusPass || v.Env != env {
				continue
			}
			if out.Passed[job] == nil {
				out.Passed[job] = map[int]gate.PassedSlot{}
			}
			passed := gate.PassedSlot{Adapter: v.Adapter, Run: v.Run}
			for _, viol := range v.BelowThreshold {
				passed.BelowThreshold = append(passed.BelowThreshold, GateViolation(verdicts.Annotated{Violation: viol, Status: gate.ViolationNew}))
			}
			out.Passed[job][index] = passed
		}
	}
	if n, v := out.Count(); n > 0 {
		s.cons.Printf(linePreviousFails, n, v)
	}
	return out
}
