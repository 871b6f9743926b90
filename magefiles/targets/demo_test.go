package targets

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemo runs the README's first command end to end: the demo must show a
// failing run, a blocking hook answer, a passing verification and the fast
// interval answer, in that order.
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
		`stdout: {"decision":"approve","status":"passed"`,
		`stdout: {"decision":"approve","status":"interval_not_elapsed"`,
	} {
		i := strings.Index(s[last:], want)
		if i < 0 {
			t.Fatalf("demo output lacks %q after offset %d:\n%s", want, last, s)
		}
		last += i + len(want)
	}
}
