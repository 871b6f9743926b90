package parse

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Paths turns every spelling of a path a reviewer may write into the one
// project-relative, slash-separated path the gauntlet stores and compares:
// relative or absolute, "./" or "../" on the way, doubled slashes, '\'
// separators, a Windows drive, an "a/" or "b/" diff prefix, a path from
// the repository's top level or from another machine's checkout of the
// project. Every comparison of a reviewer's path (with the diff, with
// earlier violations, with skips) goes through Canonical first.
type Paths struct {
	// roots are the spellings of the absolute project root, slash-separated.
	roots []string
	// known are the project's paths the answer may name: the diff's files,
	// the earlier violations'; a path that is none of them is matched to
	// the one it ends with, or that ends with it.
	known map[string]bool
	list  []string
	// alias are other spellings of known paths whose name is not plain
	// text (see spellings), each to its path; "" when it spells several.
	alias map[string]string
	// trimmed are the known paths by their text without blanks at either
	// end (each path element's): "" when several paths trim alike.
	trimmed map[string]string
}

// NewPaths is Paths for the project at root (an absolute path; "" when
// unknown) whose answer may name the known files.
func NewPaths(root string, known ...[]string) Paths {
	p := Paths{known: map[string]bool{}}
	if root != "" {
		p.roots = append(p.roots, strings.TrimSuffix(filepath.ToSlash(root), "/"))
		if real, err := filepath.EvalSymlinks(root); err == nil && filepath.ToSlash(real) != p.roots[0] {
			p.roots = append(p.roots, strings.TrimSuffix(filepath.ToSlash(real), "/"))
		}
	}
	for _, l := range known {
		for _, f := range l {
			if f != "" && !p.known[f] {
				p.known[f] = true
				p.list = append(p.list, f)
				p.addAliases(f)
				p.addTrimmed(f)
			}
		}
	}
	return p
}

// driveRE matches the drive of a Windows path ("C:/", slash-separated).
var driveRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:/`) })

// Canonical is the project-relative path file names. A path that names
// nothing known and lies in the project is returned cleaned; one outside
// it, cleaned and still absolute (or leading out with "../"), so that it
// equals no project path.
func (p Paths) Canonical(file string) string {
	if p.known[file] {
		return file // a known name as it is, blanks and '\' included
	}
	if strings.TrimSpace(file) == "" {
		return ""
	}
	if k, ok := p.alias[file]; ok && k != "" {
		return k
	}
	if k := p.trimmed[trimElems(file)]; k != "" {
		return k // "a.sh" or " a.sh" for the one known "a.sh ", or the reverse
	}
	if u := Unquote(file); u != file {
		return p.Canonical(u)
	}
	f := tidy(strings.ReplaceAll(file, `\`, "/"))
	abs := strings.HasPrefix(f, "/") || driveRE().MatchString(f)
	if !abs && strings.HasPrefix(f, "../") && len(p.roots) > 0 {
		f, abs = path.Join(p.roots[0], f), true
	}
	if !abs {
		return p.relative(f)
	}
	for _, r := range p.roots {
		if rel, ok := cutRoot(f, r); ok {
			return p.Canonical(rel) // shorter: " /x" may be left to tidy
		}
	}
	if m := p.suffixMatch(f); m != "" {
		return m
	}
	return f
}

// addTrimmed records the known path f under its trimmed text.
func (p *Paths) addTrimmed(f string) {
	t := trimElems(f)
	if p.trimmed == nil {
		p.trimmed = map[string]string{}
	}
	if k, ok := p.trimmed[t]; ok && k != f {
		p.trimmed[t] = "" // two paths trim alike: the trimmed text names neither
		return
	}
	p.trimmed[t] = f
}

// trimElems is f without blanks (spaces, tabs, line ends) at the ends of
// its slash-separated elements: "src /a.sh " and "src/a.sh" trim alike.
func trimElems(f string) string {
	el := strings.Split(f, "/")
	for i := range el {
		el[i] = strings.TrimSpace(el[i])
	}
	return strings.Join(el, "/")
}

// tidy cleans f (path.Clean) without blanks at either end, until it
// stays the same: "a /" cleans to "a ", which trims to "a".
func tidy(f string) string {
	for {
		g := path.Clean(strings.TrimSpace(f))
		if g == f {
			return f
		}
		f = g
	}
}

// relative is the canonical form of the tidy relative path f.
func (p Paths) relative(f string) string {
	if f == "." || p.known[f] {
		return f
	}
	for _, pfx := range []string{"a/", "b/"} {
		if g, ok := strings.CutPrefix(f, pfx); ok && p.known[g] {
			return g
		}
	}
	if k := p.trimmed[trimElems(f)]; k != "" {
		return k
	}
	for _, pfx := range []string{"a/", "b/"} {
		if g, ok := strings.CutPrefix(f, pfx); ok && p.trimmed[trimElems(g)] != "" {
			return p.trimmed[trimElems(g)]
		}
	}
	if m := p.suffixMatch(f); m != "" {
		return m
	}
	return f
}

// suffixMatch is the one known path that f ends with, or that ends with f,
// by whole path elements; "" when none is, or several are.
func (p Paths) suffixMatch(f string) string {
	match := ""
	for _, k := range p.list {
		if strings.HasSuffix(f, "/"+k) || strings.HasSuffix(k, "/"+f) {
			if match != "" && match != k {
				return ""
			}
			match = k
		}
	}
	return match
}

// cutRoot is f relative to root when f lies in it; a Windows drive's
// letter matches in either case.
func cutRoot(f, root string) (string, bool) {
	if driveRE().MatchString(root) && driveRE().MatchString(f) && strings.EqualFold(f[:1], root[:1]) {
		f = root[:1] + f[1:]
	}
	if f == root {
		return ".", true
	}
	return strings.CutPrefix(f, root+"/")
}

// addAliases records the spellings of the known path f a reviewer may
// write when f is not plain text: git's quoted form with and without its
// quotes, and the text a JSON answer can carry for bytes that are no
// UTF-8 (each replaced by U+FFFD, or each run of them).
func (p *Paths) addAliases(f string) {
	q := quoteC(f)
	if q == f {
		return
	}
	if p.alias == nil {
		p.alias = map[string]string{}
	}
	for _, a := range spellings(f, q) {
		if a == f || p.known[a] {
			continue
		}
		if k, ok := p.alias[a]; ok && k != f {
			p.alias[a] = "" // two paths spell it: it names neither
			continue
		}
		p.alias[a] = f
	}
}

// spellings are the other ways to write f, whose quoted form is q.
func spellings(f, q string) []string {
	out := []string{q, q[1 : len(q)-1], strings.ToValidUTF8(f, "\uFFFD")}
	var each strings.Builder
	for i := 0; i < len(f); {
		r, n := utf8.DecodeRuneInString(f[i:])
		each.WriteRune(r) // utf8.RuneError for a byte that is no UTF-8
		i += n
	}
	return append(out, each.String())
}

// quoteC is f as git writes a path it quotes (core.quotePath): between
// double quotes, control characters, '"', '\\' and every byte from 0x7f
// escaped; f itself when nothing needs it.
func quoteC(f string) string {
	need := false
	for i := 0; i < len(f) && !need; i++ {
		need = f[i] < 0x20 || f[i] == '"' || f[i] == '\\' || f[i] >= 0x7f
	}
	if !need {
		return f
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(f); i++ {
		switch c := f[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
