package outcome

import (
	"encoding/json"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
)

// Gates turns the scheduler's results into the run's gate list; run is the
// run's number (that of the records its review violations are in).
func Gates(jobs []gate.Job, results []gate.Result, run int) []GateResult {
	byID := make(map[string]gate.Job, len(jobs))
	for _, j := range jobs {
		byID[j.ID] = j
	}
	out := make([]GateResult, 0, len(results))
	for _, r := range results {
		j := byID[r.JobID]
		g := GateResult{JobID: r.JobID, Kind: string(j.Kind), Gate: j.Name, EntryPoint: j.EntryPoint, WorkingDir: workingDir(j), File: j.File(),
			Status: GateStatus(r.Status), Message: r.Message, Duration: r.Duration, LogPath: r.LogPath,
			Open: r.ErrorCount, Fixed: len(r.Fixed), Skipped: len(r.Skipped),
			Exited: r.Exited, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Timeout: j.Timeout(),
			Infrastructure: r.Infrastructure, Findings: r.Findings}
		if c := r.Cached; c != nil {
			g.Cached = &CachedFrom{At: c.At, Run: c.Run, Root: c.Root, ConsoleLog: c.ConsoleLog}
		}
		if j.Kind == gate.KindCheck && r.Status != gate.StatusPass && r.LogPath != "" {
			g.Output, g.OutputCut = check.OutputTail(r.LogPath, r.OutputEnd, OutputTailLines)
			g.FixInstructions = j.Check != nil && j.Check.FixInstructions != ""
		}
		if b := r.Baseline; b != nil {
			g.Baseline = &BaselineResult{Commit: b.Commit, PreExisting: b.PreExisting, Reason: b.Reason, NewLines: b.NewLines}
		}
		for _, s := range r.Slots {
			g.Slots = append(g.Slots, SlotResult{Adapter: s.Adapter, Index: s.Index, Status: GateStatus(s.Status),
				Message: s.Message, LogPath: s.LogPath, JSONPath: s.JSONPath, Open: s.ErrorCount, Duration: s.Duration,
				TimedOut: s.TimedOut, Violations: slotViolations(s, r.JobID, run)})
		}
		out = append(out, g)
	}
	return out
}

// workingDir is the directory job runs in, relative to the project root.
func workingDir(j gate.Job) string {
	if j.WorkingDir == "" {
		return "."
	}
	return j.WorkingDir
}

// slotViolations lists a slot's open, fixed and skipped violations, each
// with the status of its list, recorded by run in review job's slot s.
func slotViolations(s gate.Slot, job string, run int) []Violation {
	var out []Violation
	for _, l := range []struct {
		vs     []gate.Violation
		status ViolationStatus
	}{{s.Open, ViolationNew}, {s.Fixed, ViolationFixed}, {s.Skipped, ViolationSkipped}} {
		for _, v := range l.vs {
			pv := ViolationOf(v, l.status)
			pv.Review, pv.Slot, pv.Adapter, pv.Run = job, s.Index, s.Adapter, run
			pv.Path, pv.Editable = s.JSONPath, s.JSONPath != ""
			if pv.Path == "" {
				pv.Path = s.LogPath
			}
			out = append(out, pv)
		}
	}
	return out
}

// ViolationOf is the violation v of a review record with status, its line
// as a number and its priority normalized.
func ViolationOf(v gate.Violation, status ViolationStatus) Violation {
	line, _ := parse.LineNumber(v.Line)
	prio, _ := parse.NormalizePriority(v.Priority)
	out := Violation{ID: review.ID(v), File: v.File, Line: max(line, 0), Issue: v.Issue, Fix: v.Fix, Priority: string(prio), Status: status, Anchor: v.Anchor}
	switch r := v.Result.(type) {
	case nil:
	case string:
		out.Result = r
	default:
		if b, err := json.Marshal(r); err == nil {
			out.Result = string(b)
		}
	}
	return out
}
