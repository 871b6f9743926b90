package entry

import (
	"slices"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Files returns the changed files that make ep apply, in the order of
// files: those its exclude patterns leave and that lie in it (below its
// path, its wildcard directory, or matching its glob).
func (ep Expanded) Files(files []string) []string {
	return ep.filesIn(newFileIndex(files))
}

// filesIn is Files over the index of the changed files: only the range of
// names its fixed prefix selects is looked at, so the work grows with the
// files that concern ep, not with all of them.
func (ep Expanded) filesIn(idx fileIndex) []string {
	src := Clean(ep.Source.Path)
	ex := newExcluder(ep.Source.Exclude)
	_, wildcard := wildcardParent(src)
	var pattern *glob.Pattern
	if !wildcard && glob.IsGlob(src) {
		p, err := glob.Compile(src)
		if err != nil {
			return nil // a pattern that does not compile matches nothing (glob.Match)
		}
		pattern = p
	}
	var cands fileIndex
	switch {
	case pattern != nil:
		cands = idx.withPrefix(globPrefix(src))
	case ep.Path == Root:
		cands = idx
	default:
		// ep.Path itself and the names below it (and some that only
		// share its first letters, which under drops).
		cands = idx.withPrefix(ep.Path)
	}
	var picked []indexed
	for _, f := range cands {
		in := under(f.name, ep.Path)
		if pattern != nil {
			in = pattern.Match(f.name)
		}
		if in && !ex.excluded(f.name) {
			picked = append(picked, f)
		}
	}
	if len(picked) == 0 {
		return nil
	}
	slices.SortFunc(picked, func(a, b indexed) int { return a.pos - b.pos })
	out := make([]string, len(picked))
	for i, f := range picked {
		out[i] = f.name
	}
	return out
}

// SetChangedFiles sets Changed on the check jobs of jobs (as Jobs made
// them from eps) to the changed files of the entry point each came from.
// Checks of one entry point share one slice.
func SetChangedFiles(jobs []gate.Job, eps []Expanded, files []string) {
	byPath := map[string][]int{}
	for k := range eps {
		byPath[eps[k].Path] = append(byPath[eps[k].Path], k)
	}
	var idx fileIndex
	memo := make(map[int][]string)
	for i := range jobs {
		j := &jobs[i]
		if j.Kind != gate.KindCheck {
			continue
		}
		for _, k := range byPath[j.EntryPoint] {
			if !slices.Contains(eps[k].Source.Checks, j.Name) {
				continue
			}
			fs, ok := memo[k]
			if !ok {
				if idx == nil {
					idx = newFileIndex(files)
				}
				fs = eps[k].filesIn(idx)
				memo[k] = fs
			}
			j.Changed = fs
			break
		}
	}
}
