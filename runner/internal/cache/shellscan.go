package cache

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The scan of a check command for the paths it names. The command runs as
// `sh -c`, so it is read as the shell reads it (mvdan.cc/sh's parser):
// every word the shell may open, in every form the parser sees (plain,
// quoted, a redirection, an assignment's value, an option's value, a
// command substitution's own words, a parameter expansion and its default
// word, a tilde prefix, a glob, a script given to `sh -c` or on a shell's
// standard input, a here-document), is resolved to the paths it can name.
// A word whose path depends on what the scan cannot know (a command's
// output, a variable read at run time, the positional parameters, `~-`,
// `~user`, eval) makes the whole scan unresolved: the gate is then not
// cached, never keyed without that word. Over-approximation is safe (a
// path keyed that the command never opens only costs a miss); a word left
// out is not.

// Named is what a check command names by path (ScanCommand).
type Named struct {
	// Paths are the paths the command may open, as the shell opens them
	// (when Unresolved is set, those the scan resolved before it stopped):
	// absolute, or relative to the working directory (slash-separated,
	// clean, possibly climbing out of it); a glob word names the directory
	// every path it can match lies below (globDir). In order, without
	// repeats.
	Paths []string
	// Unresolved says why the command may open a path the scan cannot
	// resolve, as a sentence about the command without its subject
	// ("builds a path from the output of a command (...)"); "" when it
	// resolved every word.
	Unresolved string
}

// Lookup is the environment a check's command starts with, as the key
// holds it (see CheckEnv): ok is false for a variable that is not set, or
// whose value the key does not hold (then a word using it is unresolved).
type Lookup func(name string) (value string, set, known bool)

// maxNamed bounds the paths taken from one command: past it the scan is
// unresolved.
const maxNamed = 256

// maxAlts bounds the values one word may take (every value a variable the
// command assigns may have, each default word): past it the word is
// unresolved.
const maxAlts = 32

// maxDepth bounds how deep scripts given to a shell (`sh -c '...'`) are
// read, and maxScripts how many are: past either the scan is unresolved.
const (
	maxDepth   = 4
	maxScripts = 64
)

// shells are the programs whose `-c` argument or standard input is a
// script the scan reads too.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "mksh": true, "zsh": true, "busybox": true}

// notOpened are the programs that never open their operands (they print
// or compare them; test and [ look only at whether a path exists and what
// it is): a word of theirs that the scan cannot resolve names nothing the
// command reads. Their redirections still count.
var notOpened = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, ":": true, "true": true,
	"false": true, "exit": true, "return": true, "shift": true, "break": true, "continue": true, "wait": true,
	"unset": true, "export": true, "readonly": true, "local": true, "set": true, "trap": true, "umask": true, "kill": true}

// readers are the builtins that set the variables they name from input:
// such a variable's value is unknown.
var readers = map[string]bool{"read": true, "getopts": true, "mapfile": true, "readarray": true}

// devices are the paths outside the work tree whose content no change can
// set: keyed by their name alone.
var devices = map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/stdin": true, "/dev/stdout": true,
	"/dev/stderr": true, "/dev/tty": true, "/dev/random": true, "/dev/urandom": true}

// ScanCommand is what command (a check's, run as `sh -c` in its working
// directory, in the environment env) names by path.
func ScanCommand(command string, env Lookup) Named {
	s := &scanner{env: env, seen: map[string]bool{}}
	s.script(command, nil)
	return Named{Paths: s.paths, Unresolved: s.why}
}

// scanner is one scan: the paths found so far, and why it failed.
type scanner struct {
	env   Lookup
	paths []string
	seen  map[string]bool
	why   string
	// scripts counts the scripts read (maxScripts).
	scripts int
}

// fail records the first reason the scan is unresolved.
func (s *scanner) fail(format string, args ...any) {
	if s.why == "" {
		s.why = fmt.Sprintf(format, args...)
	}
}

// script scans a shell script: a check's command, or one a script of
// parent gives a shell (which starts with parent's variables and
// directories).
func (s *scanner) script(src string, parent *scope) {
	depth := 0
	if parent != nil {
		depth = parent.depth + 1
	}
	if depth > maxDepth {
		s.fail("nests scripts given to a shell more than %d deep", maxDepth)
		return
	}
	if s.scripts++; s.scripts > maxScripts {
		s.fail("gives shells more than %d scripts", maxScripts)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		s.fail("is a shell script that cannot be read (%q: %v)", short(src), err)
		return
	}
	sc := &scope{scanner: s, vars: map[string][]string{}, unknown: map[string]bool{}, dirs: []string{"."}, depth: depth}
	if parent != nil {
		for k, v := range parent.vars {
			sc.vars[k] = slices.Clone(v)
		}
		for k := range parent.unknown {
			sc.unknown[k] = true
		}
		sc.dirs = slices.Clone(parent.dirs)
	}
	sc.collect(f)
	if s.why != "" {
		return
	}
	sc.words(f)
}

// scope is one script being scanned: the values its variables may take
// and the directories it may run in.
type scope struct {
	*scanner
	// vars are the values each variable the script assigns may take (its
	// value in the environment among them); unknown those whose value
	// comes from input.
	vars    map[string][]string
	unknown map[string]bool
	// dirs are the directories relative paths may be relative to: the
	// working directory (".") and every directory the script changes to.
	dirs  []string
	depth int
}

// collect finds what the script assigns and where it changes directory
// (first, so that a word using a variable assigned later, in a loop,
// counts it).
func (sc *scope) collect(f *syntax.File) {
	type assign struct {
		name string
		val  *syntax.Word
	}
	var assigns []assign
	var items []assign
	var cds [][]*syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			switch {
			case n.Name == nil:
			case n.Append || n.Array != nil || n.Index != nil:
				sc.unknown[n.Name.Value] = true
			case n.Naked:
			case n.Value == nil:
				assigns = append(assigns, assign{n.Name.Value, &syntax.Word{}})
			default:
				assigns = append(assigns, assign{n.Name.Value, n.Value})
			}
		case *syntax.WordIter:
			if !n.InPos.IsValid() {
				sc.unknown[n.Name.Value] = true // the positional parameters
			}
			for _, w := range n.Items {
				items = append(items, assign{n.Name.Value, w})
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				w := n.Exp.Word
				if w == nil {
					w = &syntax.Word{}
				}
				assigns = append(assigns, assign{n.Param.Value, w})
			}
		case *syntax.CallExpr:
			prog := literal(n.Args)
			switch {
			case prog == "eval":
				sc.fail("runs eval, which builds a command at run time")
			case readers[prog]:
				for _, w := range n.Args[1:] {
					if name := w.Lit(); name != "" && !strings.HasPrefix(name, "-") {
						sc.unknown[name] = true
					}
				}
			case prog == "printf" && len(n.Args) > 2 && n.Args[1].Lit() == "-v":
				sc.unknown[n.Args[2].Lit()] = true
			case prog == "cd" || prog == "pushd":
				cds = append(cds, n.Args[1:])
			}
		}
		return true
	})
	// A variable's values: the environment's, then what the script
	// assigns; a value that uses variables is resolved once they are
	// (a few rounds: assignments that build on each other).
	for _, a := range append(assigns, items...) {
		if _, ok := sc.vars[a.name]; !ok {
			sc.vars[a.name] = sc.envValues(a.name)
		}
	}
	for round := 0; ; round++ {
		before := sc.size()
		for _, a := range assigns {
			sc.addValues(a.name, a.val, false)
		}
		for _, a := range items {
			sc.addValues(a.name, a.val, true)
		}
		if sc.size() == before {
			break
		}
		if round == maxRounds {
			// Values that build on themselves (F=$F/.. in a loop) have
			// no end the scan can reach.
			for _, a := range append(assigns, items...) {
				sc.unknown[a.name] = true
			}
			break
		}
	}
	for round := 0; ; round++ {
		before := len(sc.dirs)
		for _, args := range cds {
			sc.addDirs(args)
		}
		if len(sc.dirs) == before || sc.why != "" {
			break
		}
		if round == maxRounds {
			sc.fail("changes directory relative to where it changed before (cd .. in a loop)")
			break
		}
	}
}

// maxRounds bounds how many times the scan resolves assignments and
// directory changes that build on each other.
const maxRounds = 4

// size counts the values of every variable, and those unknown.
func (sc *scope) size() int {
	n := len(sc.unknown)
	for _, v := range sc.vars {
		n += len(v)
	}
	return n
}

// envValues are the values a variable may have before the script assigns
// it: unset (""), or its value in the environment.
func (sc *scope) envValues(name string) []string {
	v, set, known := sc.env(name)
	switch {
	case !known:
		sc.unknown[name] = true
		return nil
	case set:
		return []string{v}
	}
	return []string{""}
}

// addValues adds the values word w may take to variable name's; split:
// the word is a loop's item, each of whose fields is a value.
func (sc *scope) addValues(name string, w *syntax.Word, split bool) {
	if sc.unknown[name] {
		return
	}
	alts, why := sc.word(w, 0)
	if why != "" {
		sc.unknown[name] = true
		return
	}
	for _, a := range alts {
		vals := []string{a}
		if split {
			vals = strings.Fields(a)
		}
		for _, v := range vals {
			if !slices.Contains(sc.vars[name], v) {
				sc.vars[name] = append(sc.vars[name], v)
			}
		}
	}
	if len(sc.vars[name]) > maxAlts {
		sc.unknown[name] = true
	}
}

// addDirs adds the directories `cd args` may change to.
func (sc *scope) addDirs(args []*syntax.Word) {
	var targets []string
	for _, w := range args {
		if lit := w.Lit(); strings.HasPrefix(lit, "-") {
			if lit == "-" {
				sc.fail("runs cd -, whose directory the scan cannot know")
				return
			}
			continue
		}
		alts, why := sc.word(w, 0)
		if why != "" {
			sc.fail("changes to a directory the scan cannot resolve (%s)", why)
			return
		}
		targets = append(targets, alts...)
		break
	}
	if len(targets) == 0 {
		home, set, known := sc.env("HOME")
		if !set || !known {
			sc.fail("runs cd without a directory, and HOME is not known")
			return
		}
		targets = []string{home}
	}
	for _, t := range targets {
		for _, d := range sc.dirs {
			p := t
			if !path.IsAbs(t) {
				p = path.Join(d, t)
			}
			if p = path.Clean(p); !slices.Contains(sc.dirs, p) {
				sc.dirs = append(sc.dirs, p)
			}
		}
	}
	if len(sc.dirs) > maxAlts {
		sc.fail("changes directory in more ways than the scan follows")
	}
}

// words scans every word of the script that the shell may open.
func (sc *scope) words(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if sc.why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			sc.stdinScripts(n)
		case *syntax.CallExpr:
			sc.call(n)
		case *syntax.Assign:
			if n.Value != nil {
				sc.open(n.Value, false)
			}
		case *syntax.WordIter:
			for _, w := range n.Items {
				sc.open(w, false)
			}
		case *syntax.Redirect:
			sc.redirect(n)
		case *syntax.CaseClause:
			sc.open(n.Word, false)
		case *syntax.TestClause:
			syntax.Walk(n.X, func(m syntax.Node) bool {
				if w, ok := m.(*syntax.Word); ok {
					sc.open(w, false)
					return false
				}
				return true
			})
		}
		return true
	})
}

// call scans the words of a simple command: its program and arguments,
// and a script it gives a shell.
func (sc *scope) call(c *syntax.CallExpr) {
	if len(c.Args) == 0 {
		return
	}
	prog := path.Base(literal(c.Args))
	opens := !notOpened[prog]
	for _, w := range c.Args {
		sc.open(w, opens)
	}
	for j, w := range c.Args {
		if shells[path.Base(w.Lit())] {
			sc.shellArgs(c.Args[j+1:])
		}
	}
}

// shellArgs scans the script that the arguments args of a shell give it
// with -c (`sh -c '...'`, also when another program runs the shell:
// `xargs sh -c`, `find -exec sh -c`).
func (sc *scope) shellArgs(args []*syntax.Word) {
	for i, w := range args {
		lit := w.Lit()
		if !strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "--") {
			continue
		}
		if !strings.Contains(lit, "c") || i+1 >= len(args) {
			continue
		}
		alts, why := sc.word(args[i+1], 0)
		if why != "" {
			sc.fail("gives a shell a script the scan cannot resolve (%s)", why)
			return
		}
		for _, a := range alts {
			sc.script(a, sc)
		}
		return
	}
}

// stdinScripts scans the here-documents a shell reads as its script
// (`sh <<EOF`: a shell with no -c).
func (sc *scope) stdinScripts(st *syntax.Stmt) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || !shells[path.Base(c.Args[0].Lit())] {
		return
	}
	for _, w := range c.Args[1:] {
		if lit := w.Lit(); strings.HasPrefix(lit, "-") && !strings.HasPrefix(lit, "--") && strings.Contains(lit, "c") {
			return
		}
	}
	for _, r := range st.Redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			alts, why := sc.word(r.Hdoc, 0)
			if why != "" {
				sc.fail("gives a shell on its standard input a script the scan cannot resolve (%s)", why)
				return
			}
			for _, a := range alts {
				sc.script(a, sc)
			}
		}
	}
}

// redirect scans a redirection: a file read (or read and written), and a
// here-document (a script when a shell reads it; otherwise its words).
// A file only written is not read.
func (sc *scope) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.WordHdoc:
		sc.open(r.Word, true)
	case syntax.DplIn, syntax.DplOut:
		if lit := r.Word.Lit(); lit == "-" || strings.Trim(lit, "0123456789") == "" && lit != "" {
			return
		}
		if r.Op == syntax.DplIn {
			sc.open(r.Word, true)
		}
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc == nil {
			return
		}
		alts, why := sc.word(r.Hdoc, 0)
		if why != "" {
			sc.fail("has a here-document with what the scan cannot resolve (%s)", why)
			return
		}
		for _, a := range alts {
			for _, t := range tokens(a) {
				sc.add(t)
			}
		}
	}
}

// open resolves w and takes each path it may name; opened: the command
// opens it (an unresolved word fails the scan), else it is a value (an
// assignment's, a loop's item) whose uses are resolved where they are.
func (sc *scope) open(w *syntax.Word, opened bool) {
	alts, why := sc.word(w, 0)
	if why != "" {
		if opened {
			sc.fail("builds a path from %s", why)
		}
		return
	}
	for _, a := range alts {
		cands := append([]string{a}, tokens(a)...)
		for _, c := range cands {
			sc.add(c)
		}
	}
}

// tokens are the parts of a resolved word that may each be a path: its
// blank-separated fields (an unquoted expansion splits, a quoted program
// names paths inside it) and their pieces between quotes and parentheses
// (`open('../x')`), an option's value (`--config=x`). A script given to a
// shell is read as one (shellArgs).
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n\r'\"()=", r) }) {
		if f != s && f != "/" {
			out = append(out, f)
		}
	}
	return out
}

// add takes the resolved word p as a path, when it may be one.
func (sc *scope) add(p string) {
	if p == "" || strings.HasPrefix(p, "-") || strings.Contains(p, "://") || strings.ContainsRune(p, 0) {
		return
	}
	if w, ok := strings.CutSuffix(p, "/..."); ok {
		p = w
	} else if p == "..." {
		p = "."
	}
	if strings.ContainsAny(p, globChars) {
		if rest, abs := strings.CutPrefix(p, "/"); abs {
			p = path.Join("/", globDir(rest))
		} else {
			p = globDir(p)
		}
	}
	var ps []string
	if path.IsAbs(p) {
		ps = []string{path.Clean(p)}
	} else {
		for _, d := range sc.dirs {
			ps = append(ps, path.Join(d, p))
		}
	}
	for _, q := range ps {
		if sc.seen[q] {
			continue
		}
		if len(sc.paths) == maxNamed {
			sc.fail("names more than %d paths", maxNamed)
			return
		}
		sc.seen[q] = true
		sc.paths = append(sc.paths, q)
	}
}

// word resolves w to every value it may take (at most maxAlts), or says
// why it cannot. An unquoted expansion keeps its blanks (the caller splits)
// and its glob characters (patterns, for add).
func (sc *scope) word(w *syntax.Word, depth int) ([]string, string) {
	return sc.parts(w, false, depth)
}

// parts resolves the parts of w, inside double quotes when quoted.
func (sc *scope) parts(w *syntax.Word, quoted bool, depth int) ([]string, string) {
	if w == nil {
		return []string{""}, ""
	}
	if depth > maxDepth {
		return nil, "parameter expansions nested deeper than the scan follows"
	}
	alts := []string{""}
	for i, part := range w.Parts {
		vals, why := sc.part(part, quoted, depth)
		if why != "" {
			return nil, why
		}
		if i == 0 && !quoted {
			if lit, ok := part.(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
				if vals, why = sc.tilde(unescape(lit.Value, false), len(w.Parts) == 1); why != "" {
					return nil, why
				}
			}
		}
		next := make([]string, 0, len(alts)*len(vals))
		for _, a := range alts {
			for _, v := range vals {
				next = append(next, a+v)
			}
		}
		if len(next) > maxAlts {
			return nil, "a word that may take more values than the scan follows"
		}
		alts = next
	}
	return alts, ""
}

// tilde resolves a word's leading literal that starts with a tilde
// prefix: ~ (HOME), ~+ (the directory the shell is in: relative), ~-
// (OLDPWD) or ~user.
func (sc *scope) tilde(lit string, whole bool) ([]string, string) {
	prefix, rest, slash := strings.Cut(lit, "/")
	if !slash && !whole {
		// ~ followed by an expansion: ~$USER and the like.
		return nil, "a tilde prefix the scan cannot resolve (" + lit + "...)"
	}
	if slash {
		rest = "/" + rest
	}
	switch prefix {
	case "~":
		home, set, known := sc.env("HOME")
		if !set || !known {
			return nil, "~ while HOME is not known"
		}
		return []string{strings.TrimSuffix(home, "/") + rest}, ""
	case "~+":
		// The directory the shell is in; a shell without the form (dash)
		// reads the word as it is.
		return []string{"." + rest, prefix + rest}, ""
	}
	return nil, fmt.Sprintf("%s, which the scan cannot resolve", prefix)
}

// part resolves one part of a word (inside double quotes when quoted).
func (sc *scope) part(part syntax.WordPart, quoted bool, depth int) ([]string, string) {
	switch p := part.(type) {
	case *syntax.Lit:
		return []string{unescape(p.Value, quoted)}, ""
	case *syntax.SglQuoted:
		if p.Dollar && strings.Contains(p.Value, `\`) {
			return nil, "a $'...' string with escapes"
		}
		return []string{p.Value}, ""
	case *syntax.DblQuoted:
		return sc.parts(&syntax.Word{Parts: p.Parts}, true, depth)
	case *syntax.ParamExp:
		return sc.param(p, depth)
	case *syntax.ArithmExp:
		// A number: a pattern segment that never holds a slash or `..`.
		return []string{"*"}, ""
	case *syntax.CmdSubst:
		if vals, ok := sc.substValue(p, depth); ok {
			return vals, ""
		}
		return nil, "the output of a command (" + substText(p) + ")"
	case *syntax.ProcSubst:
		// /dev/fd/N: the command's own words are scanned (words).
		return []string{"/dev/null"}, ""
	case *syntax.ExtGlob:
		return []string{"*"}, ""
	}
	return nil, fmt.Sprintf("a word part the scan does not know (%T)", part)
}

// param resolves a parameter expansion.
func (sc *scope) param(p *syntax.ParamExp, depth int) ([]string, string) {
	if p.Param == nil || p.Excl || p.Width || p.IsSet || p.Index != nil || p.Slice != nil || p.Repl != nil ||
		p.Names != 0 || p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 {
		return nil, "a parameter expansion the scan does not follow"
	}
	name := p.Param.Value
	if p.Length {
		return []string{"*"}, ""
	}
	base, why := sc.value(name)
	if p.Exp == nil {
		if why != "" {
			return nil, why
		}
		return base, ""
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		// Either the value or the word (or nothing): all of them.
		alt, awhy := sc.word(p.Exp.Word, depth+1)
		if awhy != "" {
			return nil, awhy
		}
		if p.Exp.Op == syntax.AlternateUnset || p.Exp.Op == syntax.AlternateUnsetOrNull {
			return append(alt, ""), ""
		}
		if why != "" {
			return nil, why
		}
		return append(base, alt...), ""
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return base, why
	}
	if why != "" {
		return nil, why
	}
	for _, b := range base {
		if b != "" {
			return nil, fmt.Sprintf("${%s...} cut by a pattern", name)
		}
	}
	return []string{""}, ""
}

// value is what the parameter name may hold.
func (sc *scope) value(name string) ([]string, string) {
	switch name {
	case "?", "#", "$", "!", "-":
		return []string{"*"}, ""
	case "0":
		return []string{"sh"}, ""
	case "PWD":
		return []string{"."}, ""
	}
	if name == "@" || name == "*" || name[0] >= '1' && name[0] <= '9' {
		return nil, "the positional parameters ($" + name + ")"
	}
	if sc.unknown[name] {
		return nil, "$" + name + ", whose value the scan cannot know"
	}
	if vals, ok := sc.vars[name]; ok {
		return vals, ""
	}
	vals := sc.envValues(name)
	if vals == nil {
		return nil, "$" + name + ", whose value the scan cannot know"
	}
	return vals, ""
}

// unescape removes the backslashes of a literal as the shell does:
// before any character outside quotes, before $ ` " \ and a newline
// inside double quotes (quoted); a backslash and newline go together.
func unescape(lit string, quoted bool) string {
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' || i+1 == len(lit) {
			b.WriteByte(c)
			continue
		}
		next := lit[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// substValue is what a command substitution prints when it is one plain
// command whose output the scan can tell from its words alone: pwd (the
// directory the shell is in), dirname and basename of a path, echo and
// printf of words (as they are when no escape or format can change them;
// else, when no word holds a slash or a dot, text that names nothing but
// in the directory the shell is in: a pattern).
func (sc *scope) substValue(c *syntax.CmdSubst, depth int) ([]string, bool) {
	if len(c.Stmts) != 1 {
		return nil, false
	}
	st := c.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	var args [][]string
	for _, w := range call.Args[1:] {
		alts, why := sc.word(w, depth+1)
		if why != "" {
			return nil, false
		}
		args = append(args, alts)
	}
	one := func() ([]string, bool) {
		if len(args) != 1 {
			return nil, false
		}
		return args[0], true
	}
	switch call.Args[0].Lit() {
	case "pwd":
		return []string{"."}, len(args) == 0
	case "dirname", "basename":
		vals, ok := one()
		if !ok {
			return nil, false
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			if call.Args[0].Lit() == "dirname" {
				out[i] = path.Dir(v)
			} else {
				out[i] = path.Base(v)
			}
		}
		return out, true
	case "echo", "printf":
		var words []string
		for _, alts := range args {
			if len(alts) != 1 {
				return nil, false
			}
			words = append(words, alts[0])
		}
		text := strings.Join(words, " ")
		switch {
		case !strings.ContainsAny(text, `\%`) && (len(words) == 0 || !strings.HasPrefix(words[0], "-")) &&
			(call.Args[0].Lit() == "echo" || len(words) == 1):
			return []string{text}, true
		case !strings.ContainsAny(text, "/.") && !octal.MatchString(text):
			return []string{"*"}, true
		}
	}
	return nil, false
}

// octal matches the escapes of echo and printf that may print any byte (a
// slash, a dot): octal, hexadecimal and Unicode ones.
var octal = regexp.MustCompile(`\\([0-9]|x|u|U)`)

// literal is the program a simple command names when its first word is
// literal, else "".
func literal(args []*syntax.Word) string {
	if len(args) == 0 {
		return ""
	}
	return args[0].Lit()
}

// substText is a command substitution as the command spells it, shortened.
func substText(c *syntax.CmdSubst) string {
	var b strings.Builder
	printer := syntax.NewPrinter(syntax.Minify(true))
	_ = printer.Print(&b, &syntax.CmdSubst{Stmts: c.Stmts, Backquotes: c.Backquotes})
	return short(b.String())
}

// short is s cut to a length that fits a line of a message.
func short(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
