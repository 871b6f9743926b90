package verdicts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Statuses the agent may give a violation in a review JSON file; any
// other (new, missing, unknown) leaves it new.
const (
	Fixed   = "fixed"
	Skipped = "skipped"
	New     = "new"
)

// maxAnnotationsRead bounds what is read of one review JSON file (it holds
// the reviewer's whole output).
const maxAnnotationsRead = 64 << 20

// Pending is what the verdicts leave to verify, with the agent's
// annotations merged in.
type Pending struct {
	// Checks are the check jobs whose latest verdict failed or erred.
	Checks map[string]bool
	// Slots are, per review job and slot index, the slots whose latest
	// verdict failed, with their violations still to verify (new, or
	// fixed by the agent's word: a verification run judges them). A slot
	// that failed without naming a violation, or whose violations are all
	// past the bound, has an empty list.
	Slots map[string]map[int][]Annotated
	// Skipped are the violations of failed slots the agent skipped, with
	// its note: not pending, kept as its decisions.
	Skipped []SkippedViolation
}

// Annotated is a recorded violation with the agent's annotation.
type Annotated struct {
	Violation
	// Status is New or Fixed (Skipped ones are in Pending.Skipped); Note is
	// the agent's "result" note.
	Status string
	Note   string
}

// SkippedViolation is a violation the agent skipped.
type SkippedViolation struct {
	Job  string
	Slot int
	Annotated
}

// Empty reports whether nothing is pending.
func (p Pending) Empty() bool { return len(p.Checks) == 0 && len(p.Slots) == 0 }

// slotCount counts the pending slots.
func (p Pending) slotCount() int {
	n := 0
	for _, slots := range p.Slots {
		n += len(slots)
	}
	return n
}

// jobs are the jobs of p, each once, sorted.
func (p Pending) jobs() []string {
	var out []string
	for job := range p.Checks {
		out = append(out, job)
	}
	for job := range p.Slots {
		out = append(out, job)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Pending returns what b leaves to verify to a run in the environment env
// (the result cache's fingerprint of it) for the jobs keep accepts (nil:
// all; the caller drops jobs its configuration no longer has): the checks
// whose verdict failed or erred, and the slots whose verdict failed, each
// violation annotated from the review JSON file the slot wrote in logDir.
// The warnings name review JSON files that exist but cannot be read (their
// violations stay new).
func (b *Book) Pending(logDir, env string, keep func(job string) bool) (Pending, []string) {
	p := b.pending(env, keep)
	var warnings []string
	for job, slots := range p.Slots {
		for index := range slots {
			v := b.Slots[job][index].In(env)
			notes, err := readAnnotations(logDir, v.JSON)
			if err != nil {
				warnings = append(warnings, err.Error())
			}
			open, skipped := annotate(v.Violations, notes)
			p.Slots[job][index] = open
			for _, s := range skipped {
				p.Skipped = append(p.Skipped, SkippedViolation{Job: job, Slot: index, Annotated: s})
			}
			if len(open) == 0 && len(v.Violations) > 0 && v.Omitted == 0 {
				delete(p.Slots[job], index) // every violation skipped
			}
		}
		if len(p.Slots[job]) == 0 {
			delete(p.Slots, job)
		}
	}
	slices.SortFunc(p.Skipped, func(a, b SkippedViolation) int {
		if c := strings.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		return a.Slot - b.Slot
	})
	return p, warnings
}

// pending is Pending before the annotations: every recorded violation
// new. A failure a pass in another environment than env holds is pending
// (CheckVerdict.In); env "" takes every held failure as pending.
func (b *Book) pending(env string, keep func(job string) bool) Pending {
	p := Pending{Checks: map[string]bool{}, Slots: map[string]map[int][]Annotated{}}
	for job, v := range b.Checks {
		if v.In(env).failing() && (keep == nil || keep(job)) {
			p.Checks[job] = true
		}
	}
	for job, slots := range b.Slots {
		if keep != nil && !keep(job) {
			continue
		}
		for index, v := range slots {
			if v = v.In(env); !v.failing() {
				continue
			}
			if p.Slots[job] == nil {
				p.Slots[job] = map[int][]Annotated{}
			}
			open := make([]Annotated, len(v.Violations))
			for i, viol := range v.Violations {
				open[i] = Annotated{Violation: viol, Status: New}
			}
			p.Slots[job][index] = open
		}
	}
	return p
}

// annotation is what the gauntlet reads of one violation of a review JSON
// file: its identity and the agent's word on it. Everything else there is
// the agent's to change and is ignored.
type annotation struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Line   any    `json:"line"`
	Issue  string `json:"issue"`
	Status string `json:"status"`
	Result any    `json:"result"`
}

// readAnnotations reads the violations of the review JSON file name in
// logDir; none when the slot wrote no file or the file is gone. A file
// that exists but cannot be read or parsed gives none and an error.
func readAnnotations(logDir, name string) ([]annotation, error) {
	if name == "" || filepath.Base(name) != name {
		return nil, nil
	}
	path := filepath.Join(logDir, name)
	data, err := fsread.File(path, maxAnnotationsRead)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ignoring the agent's marks in %s: %v", path, err)
	}
	var f struct {
		Violations []json.RawMessage `json:"violations"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("ignoring the agent's marks in %s: not a review JSON file: %v", path, err)
	}
	out := make([]annotation, 0, len(f.Violations))
	for _, raw := range f.Violations {
		var a annotation
		if json.Unmarshal(raw, &a) == nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// annotate merges the annotations onto the recorded violations: an
// annotation applies to a violation when it names its id, or, having no
// id, its very file, line and issue (the TypeScript tool's files, and an
// older version's, have no ids). Only "fixed" and "skipped" and the
// "result" note are taken. When several annotations apply to one
// violation, the one that keeps it most pending wins (new over fixed over
// skipped). It returns the violations still to verify (new and fixed), in
// their recorded order, and the skipped ones.
func annotate(recorded []Violation, notes []annotation) (open, skipped []Annotated) {
	open = make([]Annotated, 0, len(recorded))
	for _, v := range recorded {
		a := Annotated{Violation: v, Status: New}
		first := true
		for _, n := range notes {
			if !n.names(v) {
				continue
			}
			status, note := n.word()
			if first || leniency(status) < leniency(a.Status) {
				a.Status, a.Note = status, note
			}
			first = false
		}
		if a.Status == Skipped {
			skipped = append(skipped, a)
		} else {
			open = append(open, a)
		}
	}
	return open, skipped
}

// names reports whether the annotation is about v.
func (n annotation) names(v Violation) bool {
	if id := strings.TrimSpace(n.ID); id != "" {
		return v.ID != "" && id == v.ID
	}
	return n.File == v.File && n.Issue == v.Issue && lineText(n.Line) == v.lineText()
}

// word is the agent's status for the violation (New unless fixed or
// skipped) and its note.
func (n annotation) word() (status, note string) {
	switch s := strings.ToLower(strings.TrimSpace(n.Status)); s {
	case Fixed, Skipped:
		status = s
	default:
		return New, ""
	}
	switch r := n.Result.(type) {
	case nil:
	case string:
		note = strings.TrimSpace(r)
	default:
		data, _ := json.Marshal(r)
		note = string(data)
	}
	return status, note
}

// leniency orders the statuses by how little they leave to verify.
func leniency(status string) int {
	switch status {
	case Skipped:
		return 2
	case Fixed:
		return 1
	}
	return 0
}

// lineText is a JSON line (a number or a string) as text.
func lineText(v any) string {
	switch l := v.(type) {
	case float64:
		if l == float64(int(l)) {
			return strconv.Itoa(int(l))
		}
		return strconv.FormatFloat(l, 'g', -1, 64)
	case string:
		return strings.TrimSpace(l)
	}
	return ""
}

// lineText is the violation's line as text.
func (v Violation) lineText() string {
	if v.Line > 0 {
		return strconv.Itoa(v.Line)
	}
	return v.LineText
}
