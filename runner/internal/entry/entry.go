// Package entry maps changed paths to expanded entry points and entry points
// to jobs: every `path: "."` entry counts, a `dir/*` wildcard yields directories only, and
// the working directory of a glob entry point is its fixed prefix.
package entry

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Root is the entry point path of the whole repository.
const Root = "."

// Expanded is one entry point after expansion: a concrete path (or a glob
// kept verbatim) and the configured entry point it came from.
type Expanded struct {
	// Path is the expanded path: ".", a fixed path, `parent/<dir>` for a
	// wildcard, or the glob itself.
	Path string
	// Dir is the working directory of its checks, relative to the root.
	Dir string
	// Source is the configured entry point.
	Source *config.EntryPoint
}

// Clean normalizes a configured path: no "./" prefix, no trailing '/'.
func Clean(p string) string {
	p = strings.TrimSpace(p)
	for strings.HasPrefix(p, "./") {
		p = strings.TrimPrefix(p, "./")
	}
	p = strings.TrimRight(p, "/")
	if p == "" {
		return Root
	}
	return p
}

// under reports whether file is p or inside directory p.
func under(file, p string) bool {
	return p == Root || strings.HasPrefix(file, p) && (len(file) == len(p) || file[len(p)] == '/')
}

// Excluded reports whether file matches one of the exclude patterns: a glob
// is matched against the whole repo-relative path, anything else is a
// prefix (the path itself or a directory holding it).
func Excluded(file string, patterns []string) bool {
	for _, p := range patterns {
		if glob.IsGlob(p) {
			if glob.Match(Clean(p), file) {
				return true
			}
		} else if under(file, Clean(p)) {
			return true
		}
	}
	return false
}

// wildcardParent returns the parent of a single-level wildcard `parent/*`
// ("" for a bare "*") and whether p is one.
func wildcardParent(p string) (string, bool) {
	if p == "*" {
		return "", true
	}
	parent, ok := strings.CutSuffix(p, "/*")
	if !ok || parent == "" || glob.IsGlob(parent) {
		return "", false
	}
	return parent, true
}

// globDir is the longest directory prefix of a glob without glob
// characters (Root when there is none).
func globDir(g string) string { return glob.FixedDir(g) }

// globPrefix is the prefix every name a glob g matches starts with: its
// fixed directory and a slash, "" when it has none.
func globPrefix(g string) string {
	if dir := globDir(g); dir != Root {
		return dir + "/"
	}
	return ""
}

// Expand maps the changed files to entry points, in config order. Each
// entry point first drops the files its exclude patterns match, then:
//   - "." applies when any file is left (every "." entry counts);
//   - `parent/*` yields `parent/<dir>` for each directory under parent that
//     holds a changed file (first-seen order);
//   - a glob applies, verbatim, when a file matches it; its checks work in
//     its fixed prefix;
//   - a fixed path applies when a file is it or lies below it. A file entry
//     point (the path is a changed file, not a directory) has its checks
//     work in the file's directory.
//
// An entry point whose directory no longer exists under root (the change
// deleted it) has nothing left to check: it is skipped, and a note says so.
// An empty file list yields no entry point. root may be "" to skip the
// existence checks.
func Expand(root string, eps []config.EntryPoint, files []string) ([]Expanded, []string) {
	if len(files) == 0 {
		return nil, nil
	}
	var notes []string
	gone := func(dir string, ep *config.EntryPoint) bool {
		if root == "" || isDirectory(filepath.Join(root, filepath.FromSlash(dir))) {
			return false
		}
		notes = append(notes, goneNote(dir, ep))
		return true
	}
	// Each entry point only looks at the files its fixed prefix selects, a
	// range of the sorted list: the work grows with the files that concern
	// an entry point, not with files × entry points.
	idx := newFileIndex(files)
	var out []Expanded
	for i := range eps {
		ep := &eps[i]
		p := Clean(ep.Path)
		ex := newExcluder(ep.Exclude)
		if parent, ok := wildcardParent(p); ok {
			prefix := parent + "/"
			if parent == "" {
				prefix = ""
			}
			// Each sub-directory with a change, at the position of its
			// first kept file in the original order.
			first := map[string]int{}
			var segs []string
			for _, f := range idx.withPrefix(prefix) {
				seg, _, isDir := strings.Cut(f.name[len(prefix):], "/")
				if !isDir || seg == "" {
					continue // a file directly in parent is not a sub-directory
				}
				if at, seen := first[seg]; seen && at < f.pos {
					continue
				}
				if ex.excluded(f.name) {
					continue
				}
				if _, seen := first[seg]; !seen {
					segs = append(segs, seg)
				}
				first[seg] = f.pos
			}
			sort.SliceStable(segs, func(a, b int) bool { return first[segs[a]] < first[segs[b]] })
			for _, seg := range segs {
				dir := prefix + seg
				if gone(dir, ep) {
					continue // the whole directory was deleted
				}
				out = append(out, Expanded{Path: dir, Dir: dir, Source: ep})
			}
			continue
		}
		if glob.IsGlob(p) {
			dir := globDir(p)
			for _, f := range idx.withPrefix(globPrefix(p)) {
				if glob.Match(p, f.name) && !ex.excluded(f.name) {
					if !gone(dir, ep) {
						out = append(out, Expanded{Path: p, Dir: dir, Source: ep})
					}
					break
				}
			}
			continue
		}
		if p == Root {
			for _, f := range files {
				if !ex.excluded(f) {
					out = append(out, Expanded{Path: p, Dir: p, Source: ep})
					break
				}
			}
			continue
		}
		file := idx.has(p) && !ex.excluded(p)
		found := file
		if !found {
			for _, f := range idx.withPrefix(p + "/") {
				if !ex.excluded(f.name) {
					found = true
					break
				}
			}
		}
		if !found {
			continue
		}
		dir := p
		if file && (root == "" || !isDirectory(filepath.Join(root, filepath.FromSlash(p)))) {
			// A file (git lists files only): its checks work beside it.
			dir = parentDir(p)
		}
		if gone(dir, ep) {
			continue
		}
		out = append(out, Expanded{Path: p, Dir: dir, Source: ep})
	}
	return out, notes
}

// goneNote says that the entry point at dir (from ep) is skipped because
// its directory no longer exists.
func goneNote(dir string, ep *config.EntryPoint) string {
	from := ""
	if p := Clean(ep.Path); p != dir {
		from = " (" + console.Text(p) + ")"
	}
	return fmt.Sprintf("Note: entry point %s%s skipped: its directory no longer exists.", console.Text(dir), from)
}

// parentDir is the directory of a slash-separated path, Root for a path at
// the top.
func parentDir(p string) string {
	if d := path.Dir(p); d != "." && d != "/" {
		return d
	}
	return Root
}

// Present keeps the jobs whose working directory exists under root; each
// job left out (its configured working_directory is gone) gets a note: a
// check that cannot start in its directory has nothing to judge. A check
// whose working directory lies outside its entry point, and which the
// change deleted (changed, the changed files, hold a path under it), is
// kept: its entry point still has changes to judge, and the change took
// away what judges them; it fails for want of its directory.
func Present(root string, jobs []gate.Job, changed []string) ([]gate.Job, []string) {
	var kept []gate.Job
	var notes []string
	for _, j := range jobs {
		if j.WorkingDir == "" || j.WorkingDir == Root || isDirectory(filepath.Join(root, filepath.FromSlash(j.WorkingDir))) ||
			deletedJudge(j, changed) {
			kept = append(kept, j)
			continue
		}
		notes = append(notes, fmt.Sprintf("Note: %s skipped: its working directory %s no longer exists.",
			console.Text(j.ID), console.Text(j.WorkingDir)))
	}
	return kept, notes
}

// deletedJudge reports whether job is a check whose working directory,
// outside its entry point, holds a changed path (the change deleted it).
func deletedJudge(job gate.Job, changed []string) bool {
	if job.Kind != gate.KindCheck || job.EntryPoint == Root || within(job.WorkingDir, job.EntryPoint) {
		return false
	}
	for _, f := range changed {
		if within(f, job.WorkingDir) {
			return true
		}
	}
	return false
}

// within reports whether the slash-separated path p is dir or below it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// indexed is a file and its position in the original list.
type indexed struct {
	name string
	pos  int
}

// fileIndex is a file list sorted by name: the files with a given prefix
// are a contiguous range.
type fileIndex []indexed

func newFileIndex(files []string) fileIndex {
	idx := make(fileIndex, len(files))
	for i, f := range files {
		idx[i] = indexed{f, i}
	}
	if !mergeRuns(idx) {
		slices.SortFunc(idx, byNameThenPos)
	}
	return idx
}

// byNameThenPos is the order of a fileIndex.
func byNameThenPos(a, b indexed) int {
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return a.pos - b.pos
}

// maxRuns is the most sorted runs mergeRuns merges.
const maxRuns = 16

// mergeRuns sorts idx, whose positions ascend, as byNameThenPos does when
// it is at most maxRuns runs of ascending names, and reports whether it
// was. A change list is a few such runs (git lists each kind of change in
// order): merging them takes a few passes, where a sort of 10,000 names
// compares each some fourteen times.
func mergeRuns(idx fileIndex) bool {
	starts := []int{0}
	for i := 1; i < len(idx); i++ {
		if idx[i-1].name > idx[i].name {
			if len(starts) == maxRuns {
				return false
			}
			starts = append(starts, i)
		}
	}
	if len(starts) == 1 {
		return true
	}
	src, dst := idx, make(fileIndex, len(idx))
	for len(starts) > 1 {
		end := func(r int) int {
			if r < len(starts) {
				return starts[r]
			}
			return len(idx)
		}
		next := starts[:0:0]
		for r := 0; r < len(starts); r += 2 {
			lo, mid, hi := starts[r], end(r+1), end(r+2)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				// Ties take the left run first: its positions are lower.
				if src[j].name < src[i].name {
					dst[k], j = src[j], j+1
				} else {
					dst[k], i = src[i], i+1
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
			next = append(next, lo)
		}
		starts = next
		src, dst = dst, src
	}
	if &src[0] != &idx[0] {
		copy(idx, src)
	}
	return true
}

// withPrefix returns the files starting with prefix ("" is all of them).
func (x fileIndex) withPrefix(prefix string) fileIndex {
	if prefix == "" {
		return x
	}
	lo := sort.Search(len(x), func(i int) bool { return x[i].name >= prefix })
	hi := lo + sort.Search(len(x)-lo, func(i int) bool { return !strings.HasPrefix(x[lo+i].name, prefix) })
	return x[lo:hi]
}

// has reports whether name is one of the files.
func (x fileIndex) has(name string) bool {
	i := sort.Search(len(x), func(i int) bool { return x[i].name >= name })
	return i < len(x) && x[i].name == name
}

// excluder is a list of exclude patterns, cleaned once (see Excluded).
type excluder struct {
	dirs  []string
	globs []string
}

func newExcluder(patterns []string) excluder {
	var x excluder
	for _, p := range patterns {
		if glob.IsGlob(p) {
			x.globs = append(x.globs, Clean(p))
		} else {
			x.dirs = append(x.dirs, Clean(p))
		}
	}
	return x
}

// excluded is Excluded(file, patterns).
func (x excluder) excluded(file string) bool {
	for _, d := range x.dirs {
		if under(file, d) {
			return true
		}
	}
	for _, g := range x.globs {
		if glob.Match(g, file) {
			return true
		}
	}
	return false
}

// ExpandAll expands every entry point without a change list (detect's
// expand-all mode): `parent/*` becomes every existing sub-directory of
// parent (sorted), everything else is kept verbatim.
func ExpandAll(root string, eps []config.EntryPoint) []Expanded {
	var out []Expanded
	for i := range eps {
		ep := &eps[i]
		p := Clean(ep.Path)
		if parent, ok := wildcardParent(p); ok {
			entries, err := fsread.Dir(filepath.Join(root, filepath.FromSlash(parent)))
			if err != nil {
				continue
			}
			var dirs []string
			for _, e := range entries {
				if e.IsDir() && e.Name() != ".git" {
					dirs = append(dirs, path.Join(parent, e.Name()))
				}
			}
			sort.Strings(dirs)
			for _, d := range dirs {
				out = append(out, Expanded{Path: d, Dir: d, Source: ep})
			}
			continue
		}
		dir := p
		if glob.IsGlob(p) {
			dir = globDir(p)
		} else if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil && !fi.IsDir() {
			dir = parentDir(p) // a file entry point
		}
		out = append(out, Expanded{Path: p, Dir: dir, Source: ep})
	}
	return out
}

func isDirectory(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Filter selects jobs.
type Filter struct {
	// Checks and Reviews select the gate kinds.
	Checks  bool
	Reviews bool
	// CI drops gates with run_in_ci false, and review gates that
	// .gauntlet/ci.yml does not list under reviews (a review needs an AI CLI
	// and its credentials: it runs in CI only when opted in); otherwise
	// gates with run_locally false are dropped.
	CI bool
	// Gate, when set, keeps only gates of that exact name.
	Gate string
	// WorkingDir, when set, keeps only jobs whose working directory is
	// that path (cleaned, relative to the root): one job of `ci list-jobs`.
	WorkingDir string
}

// keep reports whether a gate passes the filter's name, environment and
// working-directory tests.
func (f Filter) keep(name, wd string, runInCI, runLocally bool) bool {
	return (f.Gate == "" || name == f.Gate) && (f.CI && runInCI || !f.CI && runLocally) &&
		(f.WorkingDir == "" || wd == Clean(f.WorkingDir))
}

// Jobs turns expanded entry points into jobs: per entry point its checks,
// then its reviews, in config order, filtered by f. A job listed twice with
// the same id and working directory runs once. Warnings name gates that an
// entry point lists but the configuration lacks.
func Jobs(cfg *config.Config, eps []Expanded, f Filter) ([]gate.Job, []string) {
	var jobs []gate.Job
	var warnings []string
	seen := map[string]bool{}
	add := func(j gate.Job) {
		key := j.ID + "\x00" + j.WorkingDir
		if !seen[key] {
			seen[key] = true
			jobs = append(jobs, j)
		}
	}
	for _, ep := range eps {
		if f.Checks {
			for _, name := range ep.Source.Checks {
				c, ok := cfg.Checks[name]
				if !ok {
					warnings = append(warnings, fmt.Sprintf("Warning: Check gate '%s' configured in entry point '%s' but not found in checks definitions.",
						console.Text(name), console.Text(ep.Source.Path)))
					continue
				}
				wd := ep.Dir
				if c.WorkingDirectory != "" {
					wd = Clean(c.WorkingDirectory)
				}
				if !f.keep(name, wd, c.RunInCI, c.RunLocally) {
					continue
				}
				add(gate.Job{ID: gate.CheckID(ep.Path, name), Kind: gate.KindCheck, Name: name,
					EntryPoint: ep.Path, EntryGlob: ep.IsGlob(), Exclude: ep.Source.Exclude, WorkingDir: wd, Parallel: c.Parallel, Check: c})
			}
		}
		if f.Reviews {
			for _, name := range ep.Source.Reviews {
				r, ok := cfg.Reviews[name]
				if !ok {
					warnings = append(warnings, fmt.Sprintf("Warning: Review gate '%s' configured in entry point '%s' but not found in reviews definitions.",
						console.Text(name), console.Text(ep.Source.Path)))
					continue
				}
				if !f.keep(name, ep.Dir, r.RunInCI && cfg.CI.RunsReview(name), r.RunLocally) {
					continue
				}
				add(gate.Job{ID: gate.ReviewID(ep.Path, name), Kind: gate.KindReview, Name: name,
					EntryPoint: ep.Path, EntryGlob: ep.IsGlob(), Exclude: ep.Source.Exclude, WorkingDir: ep.Dir, Parallel: r.Parallel, Review: r})
			}
		}
	}
	return jobs, warnings
}
