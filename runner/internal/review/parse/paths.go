package parse

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
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
	// folds are the known paths under the looser keys of foldings, each
	// fold's keys in its own map: "" when several paths fold alike.
	folds []map[string]string
	// changed are the diff's paths (a part of known), as a set and in
	// the diff's order; changedKeys are they by their loosest key (see
	// named), each key to every changed path it gives.
	changed     map[string]bool
	changedList []string
	changedKeys map[string][]string
	// changedLoose is each of changedList's looseKey after a '/', in
	// its order (the suffixes named compares).
	changedLoose []string
}

// A folding is a looser comparison of path texts (see foldings): the
// key two spellings of one name share.
type folding func(string) string

// foldings are the comparisons tried, in turn, for a spelling that is
// no known path byte for byte: Unicode's canonical equivalence (NFC, as
// a model retypes "cafe\u0301" in "café", or as a macOS disk spells
// a name), then compatibility forms and case (see looseKey).
var foldings = []folding{
	func(f string) string { return norm.NFC.String(trimElems(f)) },
	looseKey,
}

// looseKey is f's text under every retyping a reviewer may make of its
// letters: compatibility forms (fullwidth letters, ligatures, the Kelvin
// sign), case by full folding ("ß", "ẞ" and "SS" alike, every sigma
// alike), and the Turkish i's, whose mappings in and out of upper case
// do not come back (dotted "İ", dotless "ı", "i" and "I" alike): the
// dotless i is "i", and a combining dot above that no letter composes
// with (the one folding leaves on "İ") is dropped.
func looseKey(f string) string {
	k := norm.NFKC.String(trimElems(f))
	k = norm.NFKC.String(cases.Fold().String(k))
	return turkishI.Replace(k)
}

// turkishI maps the dotless i to "i" and drops a lone dot above.
var turkishI = strings.NewReplacer("ı", "i", "\u0307", "")

// NewPaths is Paths for the project at root (an absolute path; "" when
// unknown) whose answer may name the changed files (the diff's) and the
// other known ones (earlier violations', skips').
func NewPaths(root string, changed []string, known ...[]string) Paths {
	p := Paths{known: map[string]bool{}}
	if root != "" {
		p.roots = append(p.roots, strings.TrimSuffix(filepath.ToSlash(root), "/"))
		if real, err := filepath.EvalSymlinks(root); err == nil && filepath.ToSlash(real) != p.roots[0] {
			p.roots = append(p.roots, strings.TrimSuffix(filepath.ToSlash(real), "/"))
		}
	}
	for _, l := range append([][]string{changed}, known...) {
		for _, f := range l {
			if f != "" && !p.known[f] {
				p.known[f] = true
				p.list = append(p.list, f)
				p.addAliases(f)
				p.addTrimmed(f)
				p.addFolds(f)
			}
		}
	}
	for _, f := range changed {
		p.addChanged(f)
	}
	return p
}

// driveRE matches the drive of a Windows path ("C:/", slash-separated).
var driveRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:/`) })

// Canonical is the project-relative path file names. A spelling that
// names one changed path under any folding (see named) is that path,
// even when it also names another file, unchanged, byte for byte: a
// reviewer retypes names, and a finding on the change must never pass
// for one outside it. Otherwise, a path that names nothing known and lies
// in the project is returned cleaned; one outside it, cleaned and still
// absolute (or leading out with "../"), so that it equals no project path.
func (p Paths) Canonical(file string) string {
	if p.changed[file] {
		return file
	}
	if m := p.named(file); len(m) == 1 {
		return m[0]
	}
	return p.canonical(file)
}

// Several reports whether file names more than one changed path (see
// named): a finding that cannot be placed on one, and must not be
// filtered for that.
func (p Paths) Several(file string) bool {
	return len(p.named(file)) > 1
}

// Recorded is the canonical form of a path the gauntlet's own records
// hold (earlier violations, skips): Canonical without the preference for
// a changed path, so that a record keeps naming the file it was made on.
func (p Paths) Recorded(file string) string {
	return p.canonical(file)
}

// canonical is Canonical for a spelling that names no one changed path.
func (p Paths) canonical(file string) string {
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
	if k := p.asWritten(file); k != "" {
		return k
	}
	if u := Unquote(strings.TrimSpace(file)); u != strings.TrimSpace(file) {
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
	if m := p.suffixMatchBy(f, foldings[0]); m != "" {
		return m
	}
	return f
}

// addChanged records the changed path f under its loosest key.
func (p *Paths) addChanged(f string) {
	if f == "" || p.changed[f] {
		return
	}
	if p.changed == nil {
		p.changed, p.changedKeys = map[string]bool{}, map[string][]string{}
	}
	p.changed[f] = true
	k := looseKey(f)
	p.changedList = append(p.changedList, f)
	p.changedLoose = append(p.changedLoose, "/"+k)
	p.changedKeys[k] = append(p.changedKeys[k], f)
}

// named are the changed paths the spelling file names: those whose
// loosest key (looseKey, coarser than every other folding) one of its
// forms (see forms) shares; when none does, those a form ends with, or
// that end with a form, by whole path elements under that key.
func (p Paths) named(file string) []string {
	if len(p.changedList) == 0 || strings.TrimSpace(file) == "" {
		return nil
	}
	forms := p.forms(file)
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, g := range forms {
		for _, k := range p.changedKeys[looseKey(g)] {
			add(k)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, g := range forms {
		gk := "/" + looseKey(g)
		for i, ck := range p.changedLoose {
			if strings.HasSuffix(gk, ck) && gk != ck || strings.HasSuffix(ck, gk) && ck != gk {
				add(p.changedList[i])
			}
		}
	}
	return out
}

// forms are the texts a spelling may stand for: as written, unquoted
// (git's quoting), an alias's path (see addAliases), cleaned with '\'
// kept and with '\' as separators, relative to the project root when
// it lies below it, with and without an "a/" or "b/" prefix.
func (p Paths) forms(file string) []string {
	var out []string
	add := func(g string) {
		if g != "" && g != "." && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	texts := []string{file}
	if u := Unquote(strings.TrimSpace(file)); u != strings.TrimSpace(file) {
		texts = append(texts, u)
	}
	for _, t := range texts {
		if k := p.alias[t]; k != "" {
			add(k)
		}
		for _, g := range []string{t, tidy(t), tidy(strings.ReplaceAll(t, `\`, "/"))} {
			if strings.HasPrefix(g, "../") && len(p.roots) > 0 {
				g = path.Join(p.roots[0], g)
			}
			for _, r := range p.roots {
				if rel, ok := cutRoot(g, r); ok {
					g = rel
					break
				}
			}
			add(g)
			for _, pfx := range []string{"a/", "b/"} {
				if h, ok := strings.CutPrefix(g, pfx); ok {
					add(h)
				}
			}
		}
	}
	return out
}

// asWritten is the known path file spells with its '\' kept as they
// are (a name may hold them: "./a\\cafe\u0301" is "a\\café"), cleaned,
// below the project root or relative, exactly or under a folding; "".
func (p Paths) asWritten(file string) string {
	g := tidy(file)
	if strings.HasPrefix(g, "/") {
		for _, r := range p.roots {
			if rel, ok := cutRoot(g, r); ok {
				return p.asWritten(rel)
			}
		}
		return ""
	}
	if p.known[g] {
		return g
	}
	return p.foldMatch(g)
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
	if m := p.foldMatch(f); m != "" {
		return m
	}
	return f
}

// addFolds records the known path f under each folding's key.
func (p *Paths) addFolds(f string) {
	if p.folds == nil {
		p.folds = make([]map[string]string, len(foldings))
		for i := range p.folds {
			p.folds[i] = map[string]string{}
		}
	}
	for i, fo := range foldings {
		k := fo(f)
		if g, ok := p.folds[i][k]; ok && g != f {
			p.folds[i][k] = "" // two paths fold alike: the key names neither
			continue
		}
		p.folds[i][k] = f
	}
}

// foldMatch is the one known path the tidy relative path f spells under
// a folding (with or without an "a/" or "b/" prefix); "" when none does
// or several do.
func (p Paths) foldMatch(f string) string {
	for _, g := range []string{f, strings.TrimPrefix(f, "a/"), strings.TrimPrefix(f, "b/")} {
		if k := p.foldExact(g); k != "" {
			return k
		}
	}
	return p.suffixMatchBy(f, foldings[0])
}

// foldExact is the one known path f spells under a folding, taken as
// it is; "" when none or several do.
func (p Paths) foldExact(f string) string {
	if p.folds == nil {
		return ""
	}
	for i, fo := range foldings {
		if k := p.folds[i][fo(f)]; k != "" {
			return k
		}
	}
	return ""
}

// suffixMatch is the one known path that f ends with, or that ends with f,
// by whole path elements; "" when none is, or several are.
func (p Paths) suffixMatch(f string) string {
	return p.suffixMatchBy(f, func(s string) string { return s })
}

// suffixMatchBy is suffixMatch with paths compared by their key.
func (p Paths) suffixMatchBy(f string, key func(string) string) string {
	match := ""
	f = key(f)
	for _, known := range p.list {
		if k := key(known); strings.HasSuffix(f, "/"+k) || strings.HasSuffix(k, "/"+f) {
			k = known
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
