// Package glob matches repo-relative paths against the glob patterns of
// entry points (`path` and `exclude`), with Bun's Glob.match semantics that
// the TypeScript tool used: `*` and `?` do not cross '/', `**` does
// (`a/**/b` also matches `a/b`), `[...]` classes (negated by a leading `!`
// or `^`, with `a-z` ranges) and `{x,y}` alternatives, nested.
//
// Compile checks a pattern and reports what is wrong with a malformed one
// (a reversed range, an empty class), so that the configuration can refuse
// it when it loads; Match never panics, whatever the pattern.
package glob

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// metaChars are the characters that make a path a glob.
const metaChars = "*?[{"

// maxBraceDepth bounds the nesting of {...} alternatives: deeper nests make
// no sense in a path and would make compiling quadratic.
const maxBraceDepth = 10

// IsGlob reports whether p contains any of * ? [ {.
func IsGlob(p string) bool { return strings.ContainsAny(p, metaChars) }

// FixedDir is the longest directory prefix of pattern g without glob
// characters ("." when its first segment has one): every path g matches
// lies below it.
func FixedDir(g string) string {
	dir := "."
	parts := strings.Split(g, "/")
	for i, seg := range parts[:len(parts)-1] {
		if IsGlob(seg) {
			break
		}
		dir = strings.Join(parts[:i+1], "/")
	}
	return dir
}

// Pattern is a compiled glob.
type Pattern struct {
	re *regexp.Regexp
}

// Match reports whether the repo-relative path name matches p.
func (p *Pattern) Match(name string) bool { return p.re.MatchString(name) }

// Error is a malformed pattern.
type Error struct {
	// Pattern is the whole pattern.
	Pattern string
	// Reason says what is wrong, naming the offending piece.
	Reason string
}

// Error reads `invalid glob "<pattern>": <reason>`, on one line.
func (e *Error) Error() string {
	return fmt.Sprintf("invalid glob %q: %s", e.Pattern, e.Reason)
}

// Compile checks pattern and returns its matcher. A malformed pattern gives
// an *Error: a class with a reversed range ([z-a]) or with nothing in it
// ([!]), alternatives nested deeper than 10, invalid UTF-8. An unclosed [ or
// { matches itself.
func Compile(pattern string) (*Pattern, error) {
	if !utf8.ValidString(pattern) {
		return nil, &Error{Pattern: pattern, Reason: "invalid UTF-8"}
	}
	expr, err := translate(pattern, 0)
	if err != nil {
		return nil, &Error{Pattern: pattern, Reason: err.Error()}
	}
	re, err := regexp.Compile("^" + expr + "$")
	if err != nil {
		// translate writes only valid expressions; stay safe regardless.
		return nil, &Error{Pattern: pattern, Reason: "unsupported pattern (" + err.Error() + ")"}
	}
	return &Pattern{re: re}, nil
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Pattern{}
)

// Match reports whether the repo-relative path name matches pattern,
// compiling it once. A malformed pattern matches nothing (the configuration
// refuses it before any match; Match itself never panics).
func Match(pattern, name string) bool {
	cacheMu.Lock()
	p, ok := cache[pattern]
	if !ok {
		p, _ = Compile(pattern)
		cache[pattern] = p
	}
	cacheMu.Unlock()
	return p != nil && p.Match(name)
}

// translate turns a glob into an RE2 expression (without anchors); depth is
// the nesting of the {...} being translated.
func translate(g string, depth int) (string, error) {
	closing := matchBraces(g)
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
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
			if end == 0 { // "[]": literal
				b.WriteString(regexp.QuoteMeta("[]"))
				i++
				continue
			}
			class, err := translateClass(g[i : i+end+2])
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i += end + 1
		case '{':
			end := closing[i]
			if end < 0 {
				b.WriteString(regexp.QuoteMeta("{"))
				continue
			}
			if depth+1 > maxBraceDepth {
				return "", fmt.Errorf("alternatives {...} are nested deeper than %d", maxBraceDepth)
			}
			b.WriteString("(?:")
			for k, alt := range splitAlternatives(g[i+1 : end]) {
				if k > 0 {
					b.WriteByte('|')
				}
				sub, err := translate(alt, depth+1)
				if err != nil {
					return "", err
				}
				b.WriteString(sub)
			}
			b.WriteByte(')')
			i = end
		default:
			// Byte-wise: QuoteMeta leaves non-ASCII bytes alone, so a
			// multi-byte character is copied intact.
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String(), nil
}

// translateClass turns a bracket expression "[...]" (at least one byte
// between the brackets) into an RE2 class. Every member is written as
// \x{...}, so no character of the glob can mean anything else in RE2.
func translateClass(class string) (string, error) {
	body := class[1 : len(class)-1]
	var b strings.Builder
	b.WriteByte('[')
	if body[0] == '!' || body[0] == '^' {
		b.WriteByte('^')
		body = body[1:]
	}
	if body == "" {
		return "", fmt.Errorf("the class %q is empty", class)
	}
	for body != "" {
		lo, n := utf8.DecodeRuneInString(body)
		body = body[n:]
		hi := lo
		if len(body) >= 2 && body[0] == '-' {
			hi, n = utf8.DecodeRuneInString(body[1:])
			body = body[1+n:]
			if hi < lo {
				return "", fmt.Errorf("the range %q in the class %q is reversed", string(lo)+"-"+string(hi), class)
			}
		}
		fmt.Fprintf(&b, `\x{%x}`, lo)
		if hi != lo {
			fmt.Fprintf(&b, `-\x{%x}`, hi)
		}
	}
	b.WriteByte(']')
	return b.String(), nil
}

// matchBraces maps the index of every { in g to the index of the } that
// closes it, or -1 when none does (it then matches itself), in one pass.
func matchBraces(g string) map[int]int {
	closing := map[int]int{}
	var open []int
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '{':
			closing[i] = -1
			open = append(open, i)
		case '}':
			if n := len(open); n > 0 {
				closing[open[n-1]] = i
				open = open[:n-1]
			}
		}
	}
	return closing
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
