package run

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// A review given the whole change set must account for its paths, one
// given the changes since the previous snapshot for those: never for a
// path only the other change set lists.
func TestListedFor(t *testing.T) {
	full := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
	fix := gate.DiffSpec{Mode: gate.DiffFixBase, BaseBranch: "main", FixBase: "abc"}
	ch := &changes{spec: fix, full: full,
		fullFiles: []string{"src/a", "src/b"}, since: []string{"src/b", "src/c"},
		files: []string{"src/a", "src/b", "src/c"}}
	job := gate.Job{Kind: gate.KindReview, Listed: []string{"src/a", "src/b", "src/c"}}
	for _, tt := range []struct {
		diff gate.DiffSpec
		want []string
	}{
		{full, []string{"src/a", "src/b"}},
		{fix, []string{"src/b", "src/c"}},
	} {
		var got []string
		run := listedFor(ch, func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
			got = j.Listed
			return gate.Result{}
		})
		run(context.Background(), job, gate.Env{Diff: tt.diff})
		if !slices.Equal(got, tt.want) {
			t.Errorf("diff %s: Listed %q, want %q", tt.diff.Mode, got, tt.want)
		}
	}
	plain := &changes{spec: full, full: full, fullFiles: job.Listed, files: job.Listed}
	var got []string
	listedFor(plain, func(_ context.Context, j gate.Job, _ gate.Env) gate.Result {
		got = j.Listed
		return gate.Result{}
	})(context.Background(), job, gate.Env{Diff: full})
	if !slices.Equal(got, job.Listed) {
		t.Errorf("a run with one change set: Listed %q, want %q", got, job.Listed)
	}
}
