package entry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// NotApplicable is a check job left out of a run: it works on the changed
// files of its entry point, and none is left for it.
type NotApplicable struct {
	ID     string
	Reason string
}

// sameList reports whether a and b hold the same paths: at once when they
// are the same slice (SetChangedFiles gives the checks of one entry point
// one slice), else path by path.
func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// narrow is j's changed files that exist as files and pass its glob, and
// how many of them do not exist.
func narrow(j gate.Job, exists func(string) bool) (narrowed []string, deleted int) {
	narrowed = make([]string, 0, len(j.Changed))
	for _, f := range j.Changed {
		switch {
		case !exists(f):
			deleted++
		case len(j.Check.Glob) == 0 || j.Check.MatchesGlob(check.RelPath(j.WorkingDir, f)):
			narrowed = append(narrowed, f)
		}
	}
	return narrowed, deleted
}

// lineNotApplicable is the console line of a NotApplicable job.
const lineNotApplicable = "Not applicable: %s (%s)"

// Line is its console line.
func (n NotApplicable) Line() string { return fmt.Sprintf(lineNotApplicable, n.ID, n.Reason) }

// Narrow gives every check job of jobs (made from eps) the changed files
// of its entry point that still exist as files (deleted ones are not
// passed) and pass its glob, relative to the project root; a scoped check
// (config.Check.Scoped) left with none does not apply and is returned
// apart. exists tells whether a changed file exists as a file (nil: ask
// the file system, see FileExists).
func Narrow(root string, jobs []gate.Job, eps []Expanded, files []string, exists func(string) bool) ([]gate.Job, []NotApplicable) {
	SetChangedFiles(jobs, eps, files)
	if exists == nil {
		exists = FileExists(root, files)
	}
	kept := make([]gate.Job, 0, len(jobs))
	var skipped []NotApplicable
	// Checks without a glob given the same changed files keep the same
	// ones: narrowed once, shared (a large change is as many paths per
	// check).
	type narrowing struct{ from, to []string }
	var shared []narrowing
	for _, j := range jobs {
		if j.Kind != gate.KindCheck {
			kept = append(kept, j)
			continue
		}
		total := len(j.Changed)
		var narrowed []string
		found := false
		if len(j.Check.Glob) == 0 {
			for _, s := range shared {
				if sameList(s.from, j.Changed) {
					narrowed, found = s.to, true
					break
				}
			}
		}
		deleted := total - len(narrowed)
		if !found {
			narrowed, deleted = narrow(j, exists)
			if len(j.Check.Glob) == 0 {
				shared = append(shared, narrowing{from: j.Changed, to: narrowed})
			}
		}
		j.Changed = narrowed
		if len(narrowed) == 0 && j.Check.Scoped() {
			reason := "no changed file is left for it: the changes are deletions"
			if deleted < total {
				reason = "no changed file matches its glob " + strings.Join(j.Check.Glob, ", ")
			}
			skipped = append(skipped, NotApplicable{ID: j.ID, Reason: reason})
			continue
		}
		kept = append(kept, j)
	}
	return kept, skipped
}
