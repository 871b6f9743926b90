package check

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// EnvChainFile names, in the environment of a check whose command is a
// chain (`a && b`), the file where the gauntlet's marks between its parts
// note how far the chain got.
const EnvChainFile = "GAUNTLET_CHAIN_FILE"

// Chain is the parts of a command that is one list of commands joined by
// && at its top level, as written (`go vet ./... && go test ./...`): a
// part that fails keeps the later ones from running, and their output,
// whatever they would have said, is not in the log.
type Chain []string

// ParseChain returns the parts of command when it is such a chain of two
// or more parts (POSIX shell syntax, as `sh -c` reads it); ok is false for
// anything else: one command, a pipeline, `;` lists, `||` anywhere at the
// top, a command the parser does not read.
func ParseChain(command string) (Chain, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	var parts []*syntax.Stmt
	var flatten func(s *syntax.Stmt) bool
	flatten = func(s *syntax.Stmt) bool {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.AndStmt || s.Negated || s.Background || s.Coprocess || len(s.Redirs) > 0 {
			parts = append(parts, s)
			return true
		}
		return flatten(b.X) && flatten(b.Y)
	}
	root := f.Stmts[0]
	if b, ok := root.Cmd.(*syntax.BinaryCmd); !ok || b.Op != syntax.AndStmt || root.Background || root.Negated || len(root.Redirs) > 0 {
		return nil, false
	}
	flatten(root)
	out := make(Chain, len(parts))
	for i, p := range parts {
		out[i] = command[p.Pos().Offset():p.End().Offset()]
	}
	return out, len(out) > 1
}

// script is the chain as the shell runs it, with a mark after each part
// but the last: `a && <mark 0> && b`. A mark appends the part's number to
// the file $GAUNTLET_CHAIN_FILE names and always succeeds, so the chain
// runs, prints and exits exactly as written.
func (c Chain) script() string {
	var b strings.Builder
	for i, p := range c {
		b.WriteString(p)
		if i < len(c)-1 {
			fmt.Fprintf(&b, " && { { printf '%d\\n' >>\"$%s\"; } 2>/dev/null; :; } && ", i, EnvChainFile)
		}
	}
	return b.String()
}

// reached is how many parts of the chain succeeded, read from the marks
// in file.
func reached(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Fields(string(b)) {
		if i, err := strconv.Atoi(l); err == nil && i+1 > n {
			n = i + 1
		}
	}
	return n
}
