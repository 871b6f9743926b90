package git

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"pgregory.net/rapid"
)

// A review diff holds exactly the changed files its scope selects,
// whatever their names mean to git's own pathspecs (*, ?, [, {, :, a
// leading '-', spaces, non-ASCII) and however many there are.
func TestDiffHoldsExactlyTheScope(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("base.txt", "base\n")
	r.commitAll("base")
	parts := []string{"a", "b", "*", "?", "[x]", "{c,d}", ":e", "-f", "g h", "ü", "**", "!i", `\j`}
	iter := 0
	defer func(n int) { maxPathspecBytes = n }(maxPathspecBytes)
	rapid.Check(t, func(rt *rapid.T) {
		iter++
		dir := fmt.Sprintf("it%d", iter)
		names := rapid.SliceOfNDistinct(rapid.Custom(func(rt *rapid.T) string {
			segs := rapid.SliceOfN(rapid.SampledFrom(parts), 1, 3).Draw(rt, "segs")
			return strings.Join(segs, "") + rapid.SampledFrom([]string{".ts", ".tsx", ".md", ""}).Draw(rt, "ext")
		}), 1, 8, func(s string) string { return s }).Draw(rt, "names")
		sel := setScope{}
		var want []string
		for i, n := range names {
			f := dir + "/" + n
			if i%2 == 1 {
				f = dir + "/sub/" + n
			}
			r.write(f, "line of "+n+"\n")
			if rapid.Bool().Draw(rt, "selected "+f) {
				sel[f] = true
				want = append(want, f)
			}
		}
		// A few bytes a batch make a diff of many git diffs.
		maxPathspecBytes = rapid.SampledFrom([]int{1, 30, 256 << 10}).Draw(rt, "batch bytes")
		diff, err := diffText(ctx, r.root, gate.DiffSpec{Mode: gate.DiffUncommitted}, sel)
		if err != nil {
			rt.Fatal(err)
		}
		got := parse.ParseDiff(diff).Files()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			rt.Fatalf("the diff holds %q, the scope selects %q:\n%s", got, want, diff)
		}
	})
}

// diffText is the text of Diff.
func diffText(ctx context.Context, root string, spec gate.DiffSpec, scope Scope) (string, error) {
	d, err := Diff(ctx, root, spec, scope)
	return d.Text, err
}
