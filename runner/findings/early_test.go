package findings

import (
	"fmt"
	"testing"
)

// TestMayStopEarly: a command is known to run, past its first failure,
// all it would run only when every program in it reports all its
// failures in one run (or its stops show in its output) and nothing in
// the shell decides, at a failure, to run less. The table is the shell
// forms that can stop early (an `exit` after `;` or `||`, a subshell or
// group holding `&&`, a loop with `exit`, `set -e`, a script, `sh -c`, a
// make recipe, a package script, an `if`, a function, a program named as
// it runs) each wrapped around the same tools, against the forms that
// cannot (one tool, `!`, `;`, `|`, `||` between complete tools, a
// command substitution).
func TestMayStopEarly(t *testing.T) {
	tools := []string{"grep -rl BAD .", "go vet ./...", "npx eslint .", "ruff check .", "pytest -x", "go test -failfast ./...", "tsc --noEmit"}
	stops := []string{
		"%[1]s && exit 1; %[2]s && exit 1; true",
		"! %[1]s || exit 1; ! %[2]s",
		"( ! %[1]s && ! %[2]s )",
		"{ %[1]s && exit 1; %[2]s && exit 1; }",
		"for p in A B; do %[1]s && exit 1; done; %[2]s",
		"set -e; %[1]s; %[2]s",
		"set -euo pipefail; %[1]s; %[2]s",
		"set -o errexit; %[1]s; %[2]s",
		"sh ../tools/ci.sh; %[1]s; %[2]s",
		"sh -c \"! %[1]s && ! %[2]s\"",
		"bash -c '%[1]s; %[2]s'",
		"make check",
		"npm test",
		"npm run lint",
		"./run-all.sh",
		"if %[1]s; then %[2]s; fi",
		"while %[1]s; do %[2]s; done",
		"f() { %[1]s || return 1; %[2]s; }; f",
		"$LINT; %[1]s",
		"eval '%[1]s'; %[2]s",
		". ./lint.sh",
		"%[1]s; { %[2]s; } && true",
		"(%[1]s); %[2]s || exit 1",
	}
	runsAll := []string{
		"%[1]s",
		"! %[1]s",
		"%[1]s; %[2]s",
		"! %[1]s; ! %[2]s",
		"%[1]s | %[2]s",
		"%[1]s || %[2]s",
		"( %[1]s; %[2]s )",
		"{ ! %[1]s; %[2]s; }",
		"test -z \"$(%[1]s)\"",
		"X=1 %[1]s; %[2]s 2>&1",
		"set -x; %[1]s; %[2]s",
		"for p in a b; do %[1]s; done",
		"case x in x) %[1]s;; esac",
	}
	for _, a := range tools {
		for _, b := range tools {
			for _, f := range stops {
				cmd := fmt.Sprintf(f, a, b)
				if why := MayStopEarly(cmd); why == "" {
					t.Errorf("%q: known to run all it would, but it may stop at its first failure", cmd)
				}
			}
			for _, f := range runsAll {
				cmd := fmt.Sprintf(f, a, b)
				if why := MayStopEarly(cmd); why != "" {
					t.Errorf("%q: may stop early (%s), but it runs all it would", cmd, why)
				}
			}
		}
	}
}
