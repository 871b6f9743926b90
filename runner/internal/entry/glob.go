package entry

import (
	"regexp"
	"strings"
	"sync"
)

// globChars are the characters that make a path a glob.
const globChars = "*?[{"

// IsGlob reports whether p contains any of * ? [ {.
func IsGlob(p string) bool { return strings.ContainsAny(p, globChars) }

var (
	globMu    sync.Mutex
	globCache = map[string]*regexp.Regexp{}
)

// Match reports whether the repo-relative path name matches the glob
// pattern: `*` and `?` do not cross '/', `**` does (`a/**/b` also matches
// `a/b`), `[...]` (with `!` or `^` negation) and `{x,y}` alternatives.
func Match(pattern, name string) bool {
	globMu.Lock()
	re, ok := globCache[pattern]
	if !ok {
		re = regexp.MustCompile("^" + globToRegexp(pattern) + "$")
		globCache[pattern] = re
	}
	globMu.Unlock()
	return re.MatchString(name)
}

// globToRegexp translates a glob into an RE2 expression (without anchors).
// Malformed pieces (an unclosed [ or {) match themselves literally.
func globToRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				// "**": any number of path segments.
				j := i + 2
				if (i == 0 || g[i-1] == '/') && j < len(g) && g[j] == '/' {
					b.WriteString("(?:.*/)?") // "**/" also matches no segment
					i = j
				} else {
					b.WriteString(".*")
					i = j - 1
				}
				continue
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				b.WriteString(regexp.QuoteMeta("["))
				continue
			}
			class := g[i+1 : i+1+end]
			if end == 0 { // "[]" : literal
				b.WriteString(regexp.QuoteMeta("[]"))
				i++
				continue
			}
			neg := false
			if class[0] == '!' || class[0] == '^' {
				neg, class = true, class[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(class, `\`, `\\`), "[", `\[`))
			b.WriteByte(']')
			i += end + 1
		case '{':
			end := matchingBrace(g, i)
			if end < 0 {
				b.WriteString(regexp.QuoteMeta("{"))
				continue
			}
			b.WriteString("(?:")
			for k, alt := range splitAlternatives(g[i+1 : end]) {
				if k > 0 {
					b.WriteByte('|')
				}
				b.WriteString(globToRegexp(alt))
			}
			b.WriteByte(')')
			i = end
		default:
			// Byte-wise: QuoteMeta leaves non-ASCII bytes alone, so a
			// multi-byte character is copied intact.
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

// matchingBrace returns the index of the } closing the { at open, or -1.
func matchingBrace(g string, open int) int {
	depth := 0
	for i := open; i < len(g); i++ {
		switch g[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitAlternatives splits s on the commas outside nested braces.
func splitAlternatives(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
