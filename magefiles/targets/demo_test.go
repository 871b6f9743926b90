package targets

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemo runs the README's first command end to end: the demo must show a
// failing run, a blocking hook answer with what failed inline, the review
// violation listed and skipped with update-review, a verification passing
// with warnings and the fast interval answer, in that order.
func TestDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	oldOut, oldErr := Out, Err
	Out, Err = &out, &errOut
	defer func() { Out, Err = oldOut, oldErr }()
	if err := Demo(context.Background()); err != nil {
		t.Fatalf("Demo: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	s := out.String()
	last := 0
	for _, want := range []string{
		"Status: Failed",
		`stdout: {"decision":"block","status":"failed"`,
		"The agent is sent back to work",
		"## What failed",
		"### Check `check:src:no-todo`: exited with code 1",
		"│ ./bye.sh:2:# TODO: handle an empty name",
		"│ issue: The greeting is hard-coded in English",
		"$ agent-gauntlet update-review list",
		"src/bye.sh:3  The greeting is hard-coded in English",
		"Marked ",
		"Review violations: 0 new, 0 fixed, 1 skipped",
		`stdout: {"decision":"approve","status":"passed_with_warnings"`,
		`stdout: {"decision":"approve","status":"interval_not_elapsed"`,
	} {
		i := strings.Index(s[last:], want)
		if i < 0 {
			t.Fatalf("demo output lacks %q after offset %d:\n%s", want, last, s)
		}
		last += i + len(want)
	}
}
