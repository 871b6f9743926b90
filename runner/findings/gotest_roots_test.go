package findings

import (
	"strings"
	"testing"
)

// A failing Go test whose message names a path under the tree it ran in
// (the base run's own checkout, the work tree) is the same failure on both
// sides: the roots are made relative in test messages as in any other
// output.
func TestGoTestMessageRootsRelative(t *testing.T) {
	out := func(root string) string {
		return "=== RUN   TestOld\n" +
			"    old_test.go:9: stat " + root + "/testdata/golden.txt: no such file or directory\n" +
			"--- FAIL: TestOld (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s\nFAIL\n"
	}
	work, base := "/home/me/proj", "/tmp/agent-gauntlet-base-42/tree"
	spec := func(root string) Spec {
		return Spec{Format: FormatGoTest, Command: "go test ./...", Dir: ".", Roots: []string{root}, Failed: true}
	}
	w := Parse(spec(work), strings.NewReader(out(work)))
	b := Parse(spec(base), strings.NewReader(out(base)))
	if v := Compare(b, w, nil); !v.PreExisting {
		t.Errorf("the same failure under two roots reads as new: %s (new %+v)", v.Reason, v.New)
	}
}
