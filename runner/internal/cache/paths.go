package cache

import (
	"path"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// maxNamed bounds the paths taken from one command.
const maxNamed = 64

// Paths are the paths, relative to the project root, whose content makes
// the tree part of the key of job under ScopeEntryPoint: the entry point
// (a glob's fixed directory prefix; "." is the whole project), the
// working directory a check runs in (which may be outside its entry
// point) and the paths the gate names (NamedPaths of a check's command).
// ok is false when some path cannot be looked up exactly (a newline in
// it): the gate is then keyed by the whole tree.
func Paths(job gate.Job) (paths []string, ok bool) {
	paths = append(paths, scopeDir(job.EntryPoint))
	if wd := scopeDir(job.WorkingDir); job.Kind == gate.KindCheck && job.WorkingDir != "" && !within(wd, paths[0]) {
		paths = append(paths, wd)
	}
	if cmd := job.Command(); cmd != "" {
		paths = append(paths, NamedPaths(cmd, job.WorkingDir)...)
	}
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\x00") {
			return nil, false
		}
	}
	return paths, true
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

// NamedPaths are the paths a check command names, relative to the project
// root: every word that may be a path inside the project (a script, a
// configuration file, `./...`), resolved against the working directory wd
// (relative to the root). A glob word (`../conf/*.txt`, `{a,b}/x`) names
// the directory every path it can match lies below (globDir), so what it
// matches now and any later match are in the key. Words that cannot name
// a project path are left out: options, variables, URLs, absolute paths
// and paths leading out of the project. An option's value
// (`--config=lint.yml`) and an assignment's (`CONFIG=lint.yml`) count as
// words. Go's `dir/...` names dir. At most 64 paths, in order, without
// repeats.
func NamedPaths(command, wd string) []string {
	if wd == "" {
		wd = "."
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range words(command) {
		if _, v, ok := strings.Cut(w, "="); ok {
			w = v
		} else if strings.HasPrefix(w, "-") {
			continue
		}
		p, ok := projectPath(w, wd)
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
		if len(out) == maxNamed {
			break
		}
	}
	return out
}

// projectPath resolves word against wd, when it may name a path inside the
// project; a glob word resolves to its globDir.
func projectPath(word, wd string) (string, bool) {
	if word == "" || strings.HasPrefix(word, "/") || strings.HasPrefix(word, "~") ||
		strings.HasPrefix(word, "-") || strings.Contains(word, "://") ||
		strings.ContainsAny(word, "$`\\\n\x00") {
		return "", false
	}
	if w, ok := strings.CutSuffix(word, "/..."); ok {
		word = w
	} else if word == "..." {
		word = "."
	}
	if glob.IsGlob(word) {
		word = globDir(word)
	}
	p := path.Clean(path.Join(wd, word))
	if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return "", false
	}
	return p, true
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

// words splits a command into shell words: blanks and the shell's control
// operators separate words, quotes group them (and are removed).
func words(command string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			out = append(out, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for _, c := range command {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
			cur.WriteRune(c)
		case c == '\'' || c == '"':
			quote = c
			inWord = true
		case strings.ContainsRune(" \t\r\n;&|()<>", c):
			flush()
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	flush()
	return out
}

// within reports whether the path p is dir or below it (both relative to
// the same directory, "." for it).
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}
