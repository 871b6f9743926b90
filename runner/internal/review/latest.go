package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// SlotRecord is the newest verdict of one review slot in the log
// directory: the file that holds it and its violations as stored (every
// status, the agent's edits included).
type SlotRecord struct {
	// Job is the review job id; Slot the slot index; Adapter the CLI.
	Job     string
	Slot    int
	Adapter string
	// Run is the run number of the file; Path its absolute path; JSON
	// tells a review JSON file from a legacy log (which cannot be edited).
	Run  int
	Path string
	JSON bool
	// Status is the slot's verdict: pass, fail or skipped_prior_pass.
	Status     gate.Status
	Violations []gate.Violation
}

// Latest returns the newest verdict of every review slot among names (the
// files of logDir, named by jn; see latestVerdicts: runs in which the slot erred are
// passed over), sorted by job and slot, and one warning per unreadable
// file.
func Latest(logDir string, names []logdir.Name, jn *logdir.JobNames) ([]SlotRecord, []string) {
	records, warnings := latestVerdicts(slotNames(logDir, names, jn), 0, nil)
	var out []SlotRecord
	for job, byIndex := range records {
		for index, r := range byIndex {
			out = append(out, SlotRecord{Job: job, Slot: index, Adapter: r.adapter, Run: r.Run, Path: r.path,
				JSON: r.json(), Status: r.status, Violations: r.violations})
		}
	}
	slices.SortFunc(out, func(a, b SlotRecord) int {
		if c := strings.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		return a.Slot - b.Slot
	})
	return out, warnings
}

// StatusOf is a stored violation's status as the gauntlet reads it: new
// (also for a missing or unknown status), fixed or skipped.
func StatusOf(v gate.Violation) string {
	switch s := strings.ToLower(strings.TrimSpace(v.Status)); s {
	case gate.ViolationFixed, gate.ViolationSkipped:
		return s
	}
	return gate.ViolationNew
}

// ResultText is the agent's note on a violation ("" when there is none).
func ResultText(v gate.Violation) string { return resultText(v.Result) }

// Marked returns the verdict of every review JSON file among names (the
// files of logDir, named by jn), of every run, not only the newest of each
// slot: the agent may mark a violation in any of them, by hand or by
// command. They come oldest run first, so that a later mark of the same
// violation is read last; one warning per unreadable file.
func Marked(logDir string, names []logdir.Name, jn *logdir.JobNames) ([]SlotRecord, []string) {
	var out []SlotRecord
	var warnings []string
	for _, n := range slotNames(logDir, names, jn) {
		if !n.json() {
			continue
		}
		r, err := readRecord(n)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("ignoring unreadable review log: %v", err))
			continue
		}
		out = append(out, SlotRecord{Job: r.job, Slot: r.Slot, Adapter: r.adapter, Run: r.Run, Path: r.path,
			JSON: true, Status: r.status, Violations: r.violations})
	}
	slices.SortStableFunc(out, func(a, b SlotRecord) int {
		if a.Run != b.Run {
			return a.Run - b.Run
		}
		if c := strings.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		return a.Slot - b.Slot
	})
	return out, warnings
}
