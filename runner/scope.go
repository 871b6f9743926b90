package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// notApplicable is a check job left out of a run: it works on the changed
// files of its entry point, and none is left for it.
type notApplicable struct {
	id     string
	reason string
}

// line is its console line.
func (n notApplicable) line() string { return fmt.Sprintf(lineNotApplicable, n.id, n.reason) }

// scopeJobs gives every check job of jobs (made from eps) the changed files
// of its entry point that still exist as files (deleted ones are not
// passed) and pass its glob, relative to the project root; a scoped check
// (config.Check.Scoped) left with none does not apply and is returned
// apart.
func scopeJobs(root string, jobs []gate.Job, eps []entry.Expanded, files []string) ([]gate.Job, []notApplicable) {
	entry.SetChangedFiles(jobs, eps, files)
	present := map[string]bool{}
	exists := func(f string) bool {
		ok, seen := present[f]
		if !seen {
			st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f)))
			ok = err == nil && !st.IsDir()
			present[f] = ok
		}
		return ok
	}
	kept := make([]gate.Job, 0, len(jobs))
	var skipped []notApplicable
	for _, j := range jobs {
		if j.Kind != gate.KindCheck {
			kept = append(kept, j)
			continue
		}
		total := len(j.Changed)
		narrowed := make([]string, 0, total)
		deleted := 0
		for _, f := range j.Changed {
			switch {
			case !exists(f):
				deleted++
			case j.Check.MatchesGlob(check.RelPath(j.WorkingDir, f)):
				narrowed = append(narrowed, f)
			}
		}
		j.Changed = narrowed
		if len(narrowed) == 0 && j.Check.Scoped() {
			reason := "no changed file is left for it: the changes are deletions"
			if deleted < total {
				reason = "no changed file matches its glob " + strings.Join(j.Check.Glob, ", ")
			}
			skipped = append(skipped, notApplicable{id: j.ID, reason: reason})
			continue
		}
		kept = append(kept, j)
	}
	return kept, skipped
}
