package findings

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// complete are the tools known to report, in one run, every failure they
// would report past their first: linters and type checkers that read
// everything they are given, and the test runners whose early stops
// (go test -failfast, pytest -x, jest --bail, cargo test without
// --no-fail-fast, a Maven reactor or Gradle build that skipped what came
// after a failure) this package reads from their output as a Stop.
var complete = map[string]bool{
	"go test": true, "go vet": true, "gofmt": true, "goimports": true, "staticcheck": true, "golangci-lint": true,
	"pytest": true, "py.test": true, "jest": true, "cargo test": true, "mvn": true, "gradle": true,
	"eslint": true, "tsc": true, "ruff": true, "flake8": true, "mypy": true, "dmypy": true, "pylint": true,
	"prettier": true, "black": true, "isort": true, "shellcheck": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "git": true, "diff": true, "cmp": true,
	"test": true, "[": true, "true": true, "false": true, ":": true, "echo": true, "printf": true,
	"cd": true, "export": true, "cat": true, "wc": true, "find": true, "ls": true,
}

// MayStopEarly says why command may stop at its first failure and so
// keep what it would run after it from running, printing nothing of it:
// "" when it is known not to (every program it runs is one that reports
// all its failures in one run, or one whose stops show in its output;
// no `&&`, condition, `exit`, `set -e` or script decides what runs after
// a failure). A top-level chain `a && b` is not one command to this
// question: the gauntlet splits it and asks of each part.
func MayStopEarly(command string) string {
	plain := command
	for _, p := range placeholders {
		plain = strings.ReplaceAll(plain, p, "x")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(plain), "")
	if err != nil {
		return "its shell syntax was not read"
	}
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
			why = callStops(n)
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
func callStops(c *syntax.CallExpr) string {
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
	case complete[t.name]:
		return ""
	}
	return fmt.Sprintf("`%s` is not known to report all its failures in one run", path.Base(t.name))
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
