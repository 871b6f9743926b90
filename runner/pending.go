package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// PendingFailures is what the gauntlet's own records of its verdicts
// leave to verify in a project: the checks whose latest verdict failed or
// erred, and the review slots whose latest verdict failed, with the
// violations still to verify. The log directory is where the agent adds
// its marks (fixed or skipped, with a note), never a source of verdicts: a
// review JSON edited or deleted, a log removed, changes nothing here.
type PendingFailures struct {
	// Checks are the failed check jobs, sorted.
	Checks []string `json:"checks"`
	// Reviews are the failed review slots, by job and slot.
	Reviews []PendingSlot `json:"reviews"`
	// Violations counts the violations of the failed slots by the
	// agent's mark (skipped ones are not pending).
	Violations ViolationCounts `json:"violations"`
	// Cleared says when and why verdicts were last dropped without a run
	// that verified them (the branch changed, clean), nil when never.
	Cleared *Cleared `json:"cleared,omitempty"`
	// Record is the file of the records ("" for a project with no place
	// for one: not in a git work tree); Damaged says why a stored one could
	// not be used (what is pending was read from the log directory then).
	Record  string `json:"record,omitempty"`
	Damaged string `json:"damaged,omitempty"`
	// Warnings name files whose marks could not be read.
	Warnings []string `json:"-"`
}

// PendingSlot is a review slot whose latest verdict failed.
type PendingSlot struct {
	Job     string `json:"job"`
	Slot    int    `json:"slot"`
	Adapter string `json:"adapter"`
	// Violations are those still to verify: new, or marked fixed by the
	// agent (a verification run judges them). Empty for a slot that failed
	// without naming one.
	Violations []Violation `json:"-"`
	// Open counts them.
	Open int `json:"open"`
}

// Cleared is a drop of verdicts without a run that verified them.
type Cleared struct {
	At time.Time `json:"at"`
	// Reason says what dropped them ("the branch changed from a to b",
	// "agent-gauntlet clean").
	Reason string `json:"reason"`
	// Checks and Slots count what was pending then; Jobs names its jobs.
	Checks int      `json:"checks"`
	Slots  int      `json:"slots"`
	Jobs   []string `json:"jobs,omitempty"`
}

// Empty reports whether nothing is pending.
func (p PendingFailures) Empty() bool { return len(p.Checks) == 0 && len(p.Reviews) == 0 }

// Jobs are the pending jobs: the checks, then the review jobs, each once.
func (p PendingFailures) Jobs() []string {
	return append(append([]string{}, p.Checks...), p.reviewJobs()...)
}

// reviewJobs are the review jobs with a failed slot, each once, sorted.
func (p PendingFailures) reviewJobs() []string {
	out := []string{}
	for _, r := range p.Reviews {
		if len(out) == 0 || out[len(out)-1] != r.Job {
			out = append(out, r.Job)
		}
	}
	return out
}

// Describe says in one line what is pending ("" when nothing is): the
// failed checks, and each failed review with the violations it still has
// to verify.
func (p PendingFailures) Describe() string {
	var parts []string
	for _, c := range p.Checks {
		parts = append(parts, c+" failed")
	}
	open := map[string]int{}
	for _, r := range p.Reviews {
		open[r.Job] += max(r.Open, 1)
	}
	for _, j := range p.reviewJobs() {
		parts = append(parts, fmt.Sprintf("%s has %d violation(s) to verify", j, open[j]))
	}
	return strings.Join(parts, "; ")
}

// Pending reads what the gauntlet's own records leave to verify in the
// project cfg, at now: the one source of pending failures for status, the
// hooks and their messages. With its gates loaded (config.Project.Gates
// or All), what belongs to gates the configuration no longer gives is
// left out, as a run leaves it; a configuration of settings only leaves
// nothing out. A project upgraded
// with logs but no records yet gets them read from its log directory (the
// next run writes them). It writes nothing, and runs no git command unless
// git's location variables are set.
func Pending(ctx context.Context, cfg *config.Config, now time.Time) PendingFailures {
	return pendingOf(run.ReadVerdicts(ctx, cfg, now))
}

// pendingOf is what v leaves to verify.
func pendingOf(v run.Verdicts) PendingFailures {
	p := PendingFailures{Checks: []string{}, Reviews: []PendingSlot{}, Record: v.Path(), Damaged: v.Damaged, Warnings: v.Warnings}
	for job := range v.Pending.Checks {
		p.Checks = append(p.Checks, job)
	}
	sort.Strings(p.Checks)
	for job, slots := range v.Pending.Slots {
		for index, vs := range slots {
			ps := PendingSlot{Job: job, Slot: index, Adapter: v.Book.Slots[job][index].Adapter, Open: len(vs)}
			for _, a := range vs {
				ps.Violations = append(ps.Violations, outcome.ViolationOf(run.GateViolation(a), ViolationStatus(a.Status)))
				if a.Status == verdicts.Fixed {
					p.Violations.Fixed++
				} else {
					p.Violations.New++
				}
			}
			p.Reviews = append(p.Reviews, ps)
		}
	}
	sort.Slice(p.Reviews, func(i, j int) bool {
		a, b := p.Reviews[i], p.Reviews[j]
		return a.Job < b.Job || a.Job == b.Job && a.Slot < b.Slot
	})
	p.Violations.Skipped = len(v.Pending.Skipped)
	if c := v.Book.Cleared; c != nil {
		p.Cleared = &Cleared{At: c.At, Reason: c.Reason, Checks: c.Checks, Slots: c.Slots, Jobs: c.Jobs}
	}
	return p
}
