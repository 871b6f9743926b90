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
	sc := ep.Scope()
	var picked []indexed
	for _, f := range idx.withPrefix(sc.prefix()) {
		if sc.Selects(f.name) {
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

// Scope is the set of files an expanded entry point selects: those its
// glob matches, or its path and what lies below it, less those its
// exclude patterns name. A job's checks get the changed files of its
// scope, its reviews the diff of those files.
type Scope struct {
	path string
	// pattern is the compiled glob, nil for a path.
	pattern *glob.Pattern
	// invalid is a glob that does not compile: it selects nothing, as
	// glob.Match says.
	invalid bool
	ex      excluder
}

// NewScope is the scope of the expanded entry point path (a glob when
// isGlob is set) with the exclude patterns.
func NewScope(path string, isGlob bool, exclude []string) Scope {
	sc := Scope{path: Clean(path), ex: newExcluder(exclude)}
	if isGlob {
		p, err := glob.Compile(sc.path)
		sc.pattern, sc.invalid = p, err != nil
	}
	return sc
}

// Scope is ep's scope.
func (ep Expanded) Scope() Scope { return NewScope(ep.Path, ep.IsGlob(), ep.Source.Exclude) }

// IsGlob reports whether ep's path is a glob: the configured path kept
// verbatim, not the directory a `parent/*` wildcard expanded to.
func (ep Expanded) IsGlob() bool {
	src := Clean(ep.Source.Path)
	_, wildcard := wildcardParent(src)
	return !wildcard && glob.IsGlob(src)
}

// JobScope is the scope of the entry point job was made for.
func JobScope(job gate.Job) Scope { return NewScope(job.EntryPoint, job.EntryGlob, job.Exclude) }

// Selects reports whether the project-relative path file is in the scope.
func (sc Scope) Selects(file string) bool {
	switch {
	case sc.invalid:
		return false
	case sc.pattern != nil:
		return sc.pattern.Match(file) && !sc.ex.excluded(file)
	}
	return under(file, sc.path) && !sc.ex.excluded(file)
}

// Dir is the file or directory every selected path lies in (Root for the
// whole project): a path itself, a glob's fixed directory.
func (sc Scope) Dir() string {
	if sc.pattern != nil || sc.invalid {
		return globDir(sc.path)
	}
	return sc.path
}

// Whole reports whether the scope selects every path in Dir: a path
// without exclude patterns.
func (sc Scope) Whole() bool {
	return sc.pattern == nil && !sc.invalid && len(sc.ex.dirs) == 0 && len(sc.ex.globs) == 0
}

// prefix is what every selected name starts with ("" for any): the names
// of the sorted file list to look at.
func (sc Scope) prefix() string {
	switch {
	case sc.pattern != nil || sc.invalid:
		return globPrefix(sc.path)
	case sc.path == Root:
		return ""
	}
	// The path itself and the names below it (and some that only share
	// its first letters, which Selects drops).
	return sc.path
}

// SetChangedFiles sets Changed on the check jobs of jobs (as Jobs made
// them from eps) to the changed files of the entry point each came from.
// Checks of one entry point share one slice. Only a check scoped to its
// changed files (config.Check.Scoped) is given them: any other reads the
// tree, and keeps no list (a large change is as many paths per check).
// Review jobs get the same files as Listed: what their diff must account
// for.
func SetChangedFiles(jobs []gate.Job, eps []Expanded, files []string) {
	byPath := map[string][]int{}
	for k := range eps {
		byPath[eps[k].Path] = append(byPath[eps[k].Path], k)
	}
	var idx fileIndex
	memo := make(map[int][]string)
	for i := range jobs {
		j := &jobs[i]
		review := j.Kind == gate.KindReview
		if !review && (j.Kind != gate.KindCheck || j.Check == nil || !j.Check.Scoped()) {
			continue
		}
		for _, k := range byPath[j.EntryPoint] {
			names := eps[k].Source.Checks
			if review {
				names = eps[k].Source.Reviews
			}
			if !slices.Contains(names, j.Name) {
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
			if review {
				j.Listed = fs
			} else {
				j.Changed = fs
			}
			break
		}
	}
}
