package cache

import (
	"path"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Paths are the paths, relative to the project root, whose content makes
// the tree part of the key of job under ScopeEntryPoint: the entry point
// (a glob's fixed directory prefix; "." is the whole project), the
// working directory a check runs in (which may be outside its entry
// point) and the paths the gate names (NamedPaths of a check's command,
// in the environment env), which may lead out of the project (`../x`) or
// be absolute. why says why the gate cannot be keyed by them alone: its
// command names what the scan cannot resolve (paths then holds those it
// resolved). (A path with a newline cannot be
// looked up in a tree exactly: a gate naming one is keyed by the whole
// tree, see Results.keysOn.)
func Paths(job gate.Job, env Lookup) (paths []string, why string) {
	paths = append(paths, scopeDir(job.EntryPoint))
	if wd := scopeDir(job.WorkingDir); job.Kind == gate.KindCheck && job.WorkingDir != "" && !within(wd, paths[0]) {
		paths = append(paths, wd)
	}
	if cmd := job.Command(); cmd != "" {
		named, why := NamedPaths(cmd, job.WorkingDir, env)
		return append(paths, named...), why
	}
	return paths, ""
}

// NamedPaths are the paths a check command names (ScanCommand, in the
// environment env), relative to the project root (resolved against the
// working directory wd, relative to the root; `../` where they lead out of
// it) or absolute; why says why the scan could not resolve them all (the
// paths are then those it did).
func NamedPaths(command, wd string, env Lookup) ([]string, string) {
	if wd == "" {
		wd = "."
	}
	n := ScanCommand(command, env)
	out := make([]string, 0, len(n.Paths))
	seen := map[string]bool{}
	for _, p := range n.Paths {
		if !path.IsAbs(p) {
			p = path.Join(wd, p)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, n.Unresolved
}

// scopeDir is the fixed part of an entry point path: a glob's directory
// prefix, or the path itself.
func scopeDir(ep string) string {
	ep = strings.TrimSuffix(strings.TrimPrefix(ep, "./"), "/")
	if ep == "" {
		return "."
	}
	if !glob.IsGlob(ep) {
		return ep
	}
	return glob.FixedDir(ep)
}

// globChars are the characters that make a segment of a glob word part
// of its pattern: a brace's parts may span slashes (`{a/..,b}`).
const globChars = "*?[]{},"

// globDir is the directory (relative, as the word is) below which every
// path the glob word g can expand to lies: the directories before its
// first segment with a pattern, then one level up for each later segment
// that is or may expand to `..` (a `..`, a brace or a part of one holding
// a dot, a pattern starting with a dot), the segments that lead down
// first taken as leading back up by as many. A pattern segment never
// matches `..` by itself (the shell matches a leading dot only when the
// pattern spells it).
func globDir(g string) string {
	segs := strings.Split(g, "/")
	fixed := 0
	for fixed < len(segs) && !strings.ContainsAny(segs[fixed], globChars) {
		fixed++
	}
	depth, lowest := 0, 0
	for _, seg := range segs[fixed:] {
		switch {
		case seg == "" || seg == ".":
		case seg == ".." || mayBeParent(seg):
			depth--
		default:
			depth++
		}
		lowest = min(lowest, depth)
	}
	dir := append(append([]string{"."}, segs[:fixed]...), slices.Repeat([]string{".."}, -lowest)...)
	return path.Join(dir...)
}

// mayBeParent reports whether the segment seg of a glob word may expand
// to `..`: a brace or a part of one with a dot in it, or a pattern that
// starts with a dot (`.*`, which some shells match to `..`).
func mayBeParent(seg string) bool {
	return strings.Contains(seg, ".") && (strings.ContainsAny(seg, "{},") || strings.HasPrefix(seg, "."))
}

// within reports whether the path p is dir or below it (both relative to
// the same directory, "." for it).
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}
