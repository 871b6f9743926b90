package parse

import (
	"path"
	"strconv"
	"strings"
)

// Diff is what a unified diff changes: its files (new-side paths, in order
// of appearance) and, per file, the line numbers of the new version that the
// diff adds ("+" lines) and those that border a deletion ("-" lines: the
// line before and the line after the place they were). Deleted files are
// not part of it.
type Diff struct {
	files []string
	added map[string]map[int]bool
	// near are the lines of the new version that border a deletion.
	near map[string]map[int]bool
}

// ParseDiff reads a unified diff as git prints it (`diff --git` headers,
// quoted paths, renames, new files, `\ No newline at end of file`). Hunk
// bodies are consumed by their header counts, so an added line whose text
// starts with "++" or "--" is never mistaken for a file header.
func ParseDiff(diff string) Diff {
	s := Diff{added: map[string]map[int]bool{}, near: map[string]map[int]bool{}}
	cur := ""
	inHunk := false
	oldLeft, newLeft, newLine := 0, 0, 0
	for _, line := range strings.Split(diff, "\n") {
		if inHunk {
			switch {
			case line == "" || line[0] == ' ':
				oldLeft--
				newLeft--
				newLine++
			case line[0] == '+':
				if cur != "" {
					s.added[cur][newLine] = true
				}
				newLeft--
				newLine++
			case line[0] == '-':
				if cur != "" {
					s.near[cur][newLine], s.near[cur][max(newLine-1, 1)] = true, true
				}
				oldLeft--
			case line[0] == '\\':
				// "\ No newline at end of file" belongs to the previous line.
			default:
				inHunk = false
			}
			if inHunk {
				if oldLeft <= 0 && newLeft <= 0 {
					inHunk = false
				}
				continue
			}
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur = ""
			if p, ok := gitHeaderPath(strings.TrimSuffix(line[len("diff --git "):], "\r")); ok {
				cur = s.add(p)
			}
		case strings.HasPrefix(line, "+++ "):
			p := headerPath(line[len("+++ "):])
			if p == "/dev/null" {
				cur = ""
				continue
			}
			cur = s.add(stripPrefix(p, "b/"))
		case strings.HasPrefix(line, "rename to "):
			cur = s.add(Unquote(strings.TrimSuffix(line[len("rename to "):], "\r")))
		case strings.HasPrefix(line, "deleted file mode"):
			s.remove(cur)
			cur = ""
		case strings.HasPrefix(line, "@@ "):
			o, n, start, ok := hunkHeader(line)
			if !ok {
				continue
			}
			inHunk = o > 0 || n > 0
			oldLeft, newLeft, newLine = o, n, start
		}
	}
	return s
}

// add registers file and returns it ("" for paths inside .git/).
func (s *Diff) add(file string) string {
	file = clean(file)
	if file == "" || file == ".git" || strings.HasPrefix(file, ".git/") {
		return ""
	}
	if _, ok := s.added[file]; !ok {
		s.added[file], s.near[file] = map[int]bool{}, map[int]bool{}
		s.files = append(s.files, file)
	}
	return file
}

// remove forgets file (a deletion).
func (s *Diff) remove(file string) {
	if file == "" {
		return
	}
	delete(s.added, file)
	delete(s.near, file)
	for i, f := range s.files {
		if f == file {
			s.files = append(s.files[:i:i], s.files[i+1:]...)
			break
		}
	}
}

// Files returns the changed files in order of appearance.
func (s Diff) Files() []string { return append([]string(nil), s.files...) }

// Empty reports whether the diff names no file.
func (s Diff) Empty() bool { return len(s.files) == 0 }

// AddedLines returns the number of added lines of file.
func (s Diff) AddedLines(file string) int { return len(s.added[file]) }

// Added reports whether line of file (a path as returned by Resolve) is an
// added line.
func (s Diff) Added(file string, line int) bool { return s.added[file][line] }

// Touched reports whether line of file is an added line or borders a
// deletion: a change made only of deletions (a check removed) is the
// change's, and a violation a reviewer locates there is in scope.
func (s Diff) Touched(file string, line int) bool { return s.added[file][line] || s.near[file][line] }

// Has reports whether file (a canonical path, see Paths) is a file of
// the diff.
func (s Diff) Has(file string) bool {
	_, ok := s.added[file]
	return ok
}

// clean makes a path of a diff header canonical: no "./", no doubled or
// trailing slash. A '\' is part of a name: git writes paths with '/'.
func clean(p string) string {
	if strings.TrimSpace(p) == "" {
		return ""
	}
	p = strings.TrimPrefix(path.Clean(p), "./")
	if p == "." || p == "/" {
		return ""
	}
	return p
}

// headerPath reads the path of a ---/+++ line: unquoted, without the tab
// (and timestamp) that may follow it.
func headerPath(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if !strings.HasPrefix(s, `"`) {
		if i := strings.IndexByte(s, '\t'); i >= 0 {
			s = s[:i]
		}
		return s
	}
	return Unquote(s)
}

// Unquote decodes git's C-style quoting ("a\303\251.txt"); other text is
// returned as is.
func Unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if end := ClosingQuote(s); end > 0 {
			if u, err := strconv.Unquote(s[:end+1]); err == nil {
				return u
			}
		}
	}
	return s
}

// ClosingQuote returns the index of the quote closing the one at s[0], or -1.
func ClosingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// gitHeaderPath reads the new-side path of a `diff --git a/X b/Y` header
// when it is unambiguous (quoted, or X equals Y); renames with spaces are
// named again by their `rename to` or `+++` lines.
func gitHeaderPath(rest string) (string, bool) {
	if strings.HasPrefix(rest, `"`) {
		end := ClosingQuote(rest)
		if end < 0 {
			return "", false
		}
		second := strings.TrimSpace(rest[end+1:])
		return stripPrefix(Unquote(second), "b/"), strings.HasPrefix(Unquote(second), "b/")
	}
	if i := strings.Index(rest, ` "b/`); i >= 0 {
		return stripPrefix(Unquote(rest[i+1:]), "b/"), true
	}
	// a/X b/X: the two halves have equal length.
	if len(rest)%2 == 1 {
		half := (len(rest) - 1) / 2
		a, b := rest[:half], rest[half+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return b[2:], true
		}
	}
	return "", false
}

// stripPrefix removes prefix from p when present.
func stripPrefix(p, prefix string) string { return strings.TrimPrefix(p, prefix) }

// hunkHeader reads "@@ -a[,b] +c[,d] @@": old count b, new count d, start c.
func hunkHeader(line string) (oldCount, newCount, newStart int, ok bool) {
	fields := strings.Fields(line)
	if len(fields) < 3 || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return 0, 0, 0, false
	}
	_, oldCount, ok1 := rangeOf(fields[1][1:])
	newStart, newCount, ok2 := rangeOf(fields[2][1:])
	return oldCount, newCount, newStart, ok1 && ok2
}

// rangeOf reads "start[,count]" (count defaults to 1).
func rangeOf(s string) (start, count int, ok bool) {
	startText, countText, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(startText)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(countText)
		if err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}
