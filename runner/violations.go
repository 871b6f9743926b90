package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// Errors of Decide that are the caller's mistakes (the CLI exits 2).
var (
	// ErrUnknownViolation: no pending violation has the id.
	ErrUnknownViolation = errors.New("no pending review violation has this id")
	// ErrAmbiguousID: an id prefix names several violations.
	ErrAmbiguousID = errors.New("the id is ambiguous")
	// ErrEmptyNote: the note is missing or blank.
	ErrEmptyNote = errors.New("the note must not be empty")
	// ErrResolved: the violation is already marked fixed or skipped.
	ErrResolved = errors.New("the violation is already resolved")
)

// minIDPrefix is the shortest id prefix Decide accepts.
const minIDPrefix = 4

// ReviewViolations lists the violations of every review slot whose latest
// verdict in the gauntlet's own records failed (see Pending), as the
// reviewer reported them, with the agent's marks from the slot's review
// JSON, by status (new, fixed, skipped), review and slot; and one warning
// per file whose marks could not be read. The same violation reported by
// several slots appears once per slot (one id). Path is the slot's review
// JSON, Editable false when it is gone (or was never written).
func ReviewViolations(ctx context.Context, cfg *config.Config) ([]Violation, []string, error) {
	logDir := cfg.LogDirPath()
	v := run.ReadVerdicts(ctx, cfg, time.Now())
	var out []Violation
	add := func(job string, slot int, a verdicts.Annotated) {
		sv := v.Book.Slots[job][slot]
		pv := outcome.ViolationOf(run.GateViolation(a), ViolationStatus(a.Status))
		pv.Review, pv.Slot, pv.Adapter, pv.Run = job, slot, sv.Adapter, sv.Run
		if sv.JSON != "" {
			pv.Path = filepath.Join(logDir, sv.JSON)
			if fi, err := os.Lstat(pv.Path); err == nil && fi.Mode().IsRegular() {
				pv.Editable = true
			}
		}
		out = append(out, pv)
	}
	for job, slots := range v.Pending.Slots {
		for slot, vs := range slots {
			for _, a := range vs {
				add(job, slot, a)
			}
		}
	}
	for _, s := range v.Pending.Skipped {
		add(s.Job, s.Slot, s.Annotated)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case statusRank(a.Status) != statusRank(b.Status):
			return statusRank(a.Status) < statusRank(b.Status)
		case a.Review != b.Review:
			return a.Review < b.Review
		case a.Slot != b.Slot:
			return a.Slot < b.Slot
		case a.File != b.File:
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out, v.Warnings, nil
}

// statusRank orders new before fixed before skipped.
func statusRank(s ViolationStatus) int {
	switch s {
	case ViolationNew:
		return 0
	case ViolationFixed:
		return 1
	}
	return 2
}

// DecideResult is what Decide did.
type DecideResult struct {
	// Violation is the violation decided (its first occurrence).
	Violation Violation
	// Files are the review JSON files changed; Marked the violations
	// marked in them (one per slot that reported it).
	Files  []string
	Marked int
	// Branch is where a skip is kept as a decision ("" for a fix, or when
	// it could not be kept: see Warnings).
	Branch   string
	Warnings []string
}

// Decide records the agent's decision on the pending violation id (or an
// unambiguous prefix of at least 4 characters): status fixed or skipped,
// with note, written into every review JSON that reports it (the
// TypeScript tool's "status" and "result", so hand edits and that tool
// keep working). A skip is also kept as a decision of the branch, so that
// later reviews on the branch keep it skipped. It holds the run lock while
// it writes: a run in progress is a *lock.HeldError.
func Decide(ctx context.Context, cfg *config.Config, id string, status ViolationStatus, note string, now time.Time) (DecideResult, error) {
	var res DecideResult
	if status != ViolationFixed && status != ViolationSkipped {
		return res, fmt.Errorf("unknown decision %q (want %s or %s)", status, ViolationFixed, ViolationSkipped)
	}
	if strings.TrimSpace(note) == "" {
		return res, ErrEmptyNote
	}
	if _, err := os.Stat(cfg.LogDirPath()); errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("%w: %q", ErrUnknownViolation, id) // no logs: nothing to decide (and no directory created)
	}
	l, err := lock.Acquire(cfg.LogDirPath())
	if err != nil {
		return res, err
	}
	defer l.Release()
	if l.Warning != "" {
		res.Warnings = append(res.Warnings, l.Warning)
	}
	all, warnings, err := ReviewViolations(ctx, cfg)
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		return res, err
	}
	matches, err := findViolation(all, id)
	if err != nil {
		return res, err
	}
	res.Violation = matches[0]
	ids, files := map[string]bool{matches[0].ID: true}, map[string]bool{}
	open := false
	for _, m := range matches {
		if m.Status == ViolationNew {
			open = true
			if !m.Editable {
				return res, fmt.Errorf("violation %s is in %s, a log without a review JSON: edit it by hand or run the review again", m.ID, m.Path)
			}
			files[m.Path] = true
		}
	}
	if !open {
		msg := fmt.Sprintf("%s is marked %s", matches[0].ID, matches[0].Status)
		if matches[0].Result != "" {
			msg += fmt.Sprintf(" (%s)", SafeText(oneLineText(matches[0].Result)))
		}
		return res, fmt.Errorf("%w: %s", ErrResolved, msg)
	}
	for _, p := range sortedKeys(files) {
		n, err := review.Mark(p, ids, string(status), note)
		if err != nil {
			return res, err
		}
		res.Files = append(res.Files, p)
		res.Marked += n
	}
	if status == ViolationSkipped {
		res.Branch, res.Warnings = keepSkip(ctx, cfg, matches[0], note, now, res.Warnings)
	}
	return res, nil
}

// keepSkip keeps a skip as a decision of the branch checked out now,
// where the agent made it, and of the branch the logs were written on
// when that is another (the execution state says which); it returns the
// branch checked out.
func keepSkip(ctx context.Context, cfg *config.Config, v Violation, note string, now time.Time, warnings []string) (string, []string) {
	loc, err := git.Locate(ctx, cfg.Root)
	if err != nil {
		return "", append(warnings, fmt.Sprintf("the skip is in the review JSON, but cannot be kept as a decision of the branch: %v", err))
	}
	logsBranch := loc.Branch
	if st, err := state.Read(cfg.LogDirPath()); err == nil && st != nil && st.Branch != "" {
		logsBranch = st.Branch
	}
	gv := gate.Violation{File: v.File, Line: v.Line, Issue: v.Issue, ID: v.ID, Anchor: v.Anchor, Result: note}
	rec := []decisions.Decision{decisions.Of(v.Review, gv, fingerprint.NewSource(cfg.Root), now)}
	for _, branch := range slices.Compact([]string{loc.Branch, logsBranch}) {
		if _, err := decisions.Keep(loc, branch, rec); err != nil {
			return "", append(warnings, fmt.Sprintf("the skip is in the review JSON, but cannot be kept as a decision of branch %s: %v", branch, err))
		}
	}
	return loc.Branch, warnings
}

// findViolation returns the occurrences of the violation id names: its
// exact id, or a prefix of at least minIDPrefix characters naming one id.
func findViolation(all []Violation, id string) ([]Violation, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	var exact, prefixed []Violation
	ids := map[string]bool{}
	for _, v := range all {
		switch {
		case v.ID == id:
			exact = append(exact, v)
		case len(id) >= minIDPrefix && strings.HasPrefix(v.ID, id):
			prefixed = append(prefixed, v)
			ids[v.ID] = true
		}
	}
	switch {
	case len(exact) > 0:
		return exact, nil
	case len(ids) == 1:
		return prefixed, nil
	case len(ids) > 1:
		return nil, fmt.Errorf("%w: %q starts %s", ErrAmbiguousID, id, strings.Join(sortedKeys(ids), ", "))
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownViolation, id)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// oneLineText folds white space to single spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
