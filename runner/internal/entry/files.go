package entry

import (
	"slices"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/glob"
)

// Files returns the changed files that make ep apply, in the order of
// files: those its exclude patterns leave and that lie in it (below its
// path, its wildcard directory, or matching its glob).
func (ep Expanded) Files(files []string) []string {
	src := Clean(ep.Source.Path)
	ex := newExcluder(ep.Source.Exclude)
	_, wildcard := wildcardParent(src)
	isGlob := !wildcard && glob.IsGlob(src)
	var out []string
	for _, f := range files {
		in := under(f, ep.Path)
		if isGlob {
			in = glob.Match(src, f)
		}
		if in && !ex.excluded(f) {
			out = append(out, f)
		}
	}
	return out
}

// SetChangedFiles sets Changed on the check jobs of jobs (as Jobs made
// them from eps) to the changed files of the entry point each came from.
func SetChangedFiles(jobs []gate.Job, eps []Expanded, files []string) {
	memo := make(map[int][]string)
	for i := range jobs {
		j := &jobs[i]
		if j.Kind != gate.KindCheck {
			continue
		}
		for k := range eps {
			if eps[k].Path != j.EntryPoint || !slices.Contains(eps[k].Source.Checks, j.Name) {
				continue
			}
			fs, ok := memo[k]
			if !ok {
				fs = eps[k].Files(files)
				memo[k] = fs
			}
			j.Changed = fs
			break
		}
	}
}
