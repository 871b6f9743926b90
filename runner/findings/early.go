package findings

import (
	"fmt"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MayStopEarly says why command may stop at its first failure and so
// keep what it would run after it from running, printing nothing of it:
// "" when it is known not to (every program it runs is one that reports
// all its failures in one run, or one whose stops show in its output;
// no `&&`, condition, `exit`, `set -e` or script decides what runs after
// a failure). A top-level chain `a && b` is not one command to this
// question: the gauntlet splits it and asks of each part. Options a
// program reads from the environment the check runs in (GOFLAGS, also
// from the go command's settings file; PYTEST_ADDOPTS) count as given.
func MayStopEarly(command string) string {
	return mayStopEarly(command, os.Getenv)
}

// mayStopEarly is MayStopEarly in the environment getenv reads.
func mayStopEarly(command string, getenv func(string) string) string {
	plain := command
	for _, p := range placeholders {
		plain = strings.ReplaceAll(plain, p, "x")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(plain), "")
	if err != nil {
		return "its shell syntax was not read"
	}
	getenv = assigned(f, getenv)
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.AndStmt {
				why = fmt.Sprintf("a failure of `%s` keeps the rest of `%s` from running", text(plain, n.X), text(plain, n))
			}
		case *syntax.IfClause:
			why = "an `if` decides what runs"
		case *syntax.WhileClause:
			why = "a `while` or `until` loop ends at a failure"
		case *syntax.FuncDecl:
			why = fmt.Sprintf("its function `%s` may return at a failure", n.Name.Value)
		case *syntax.CallExpr:
			why = callStops(n, getenv)
		}
		return why == ""
	})
	return why
}

// text is the source of node n in command.
func text(command string, n syntax.Node) string {
	return command[n.Pos().Offset():n.End().Offset()]
}

// callStops says why one simple command may stop early: it ends the
// shell, makes it stop at a failure, or runs a program not known to
// report all its failures in one run (a script, `sh -c`, a make recipe,
// a package script); "" when it is known not to.
func callStops(c *syntax.CallExpr, getenv func(string) string) string {
	if len(c.Args) == 0 {
		return "" // only assignments
	}
	words := make([]string, len(c.Args))
	for i, w := range c.Args {
		words[i], _ = wordText(w)
	}
	if _, ok := wordText(c.Args[0]); !ok {
		return "it runs a program named only as it runs"
	}
	switch words[0] {
	case "exit", "return", "break", "continue":
		return fmt.Sprintf("its `%s` ends it before what follows", words[0])
	case "set":
		if errexit(words[1:]) {
			return "its `set -e` ends it at the first failure"
		}
		return ""
	}
	t := toolOf(words)
	switch {
	case t.name == "":
		return "it runs a program named only as it runs"
	case t.name == "git" && len(t.args) > 0 && !strings.HasPrefix(t.args[0], "-"):
		t = tool{name: "git " + t.args[0], args: t.args[1:]}
	}
	r, ok := complete[t.name]
	if !ok {
		return fmt.Sprintf("`%s` is not known to report all its failures in one run", path.Base(t.name))
	}
	if o := r.unsafeOption(t.args); o != "" {
		return fmt.Sprintf("`%s` with `%s` is not known to report all its failures in one run", path.Base(t.name), o)
	}
	if o := r.envOption(getenv); o != "" {
		return fmt.Sprintf("`%s` takes `%s` from %s and is not known to report all its failures with it", path.Base(t.name), o, r.env)
	}
	return ""
}

// envNames are the variables that add options to a program's runs or
// say where its settings are read from.
var envNames = []string{"GOFLAGS", "GOENV", "XDG_CONFIG_HOME", "HOME", "PYTEST_ADDOPTS"}

// assigned is getenv as the command f sets envNames in it (`X=v cmd`,
// `export X=v`, `env X=v cmd`): a value set to what is only known as it
// runs reads as an option not known to be safe.
func assigned(f *syntax.File, getenv func(string) string) func(string) string {
	set := map[string]string{}
	note := func(name string, w *syntax.Word) {
		if !listed(envNames, name) {
			return
		}
		v := ""
		if w != nil {
			var ok bool
			if v, ok = wordText(w); !ok {
				v = "-unknown-as-it-runs"
			}
		}
		set[name] = v
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				note(n.Name.Value, n.Value)
			}
		case *syntax.CallExpr:
			for _, w := range n.Args {
				if s, ok := wordText(w); ok {
					if name, v, ok := strings.Cut(s, "="); ok {
						if listed(envNames, name) {
							set[name] = v
						}
					}
				}
			}
		}
		return true
	})
	if len(set) == 0 {
		return getenv
	}
	return func(name string) string {
		if v, ok := set[name]; ok {
			return v
		}
		return getenv(name)
	}
}

// errexit reports whether the arguments of `set` turn on errexit (-e,
// -eu, -o errexit).
func errexit(args []string) bool {
	for i, a := range args {
		switch {
		case a == "-o" && i+1 < len(args) && args[i+1] == "errexit":
			return true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && a != "-o" && strings.ContainsRune(a, 'e'):
			return true
		}
	}
	return false
}

// wordText is the text of a word made of literals and quoted literals;
// ok is false when any part of it is expanded as it runs.
func wordText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
