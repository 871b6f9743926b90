package run

import (
	"errors"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// A run left without jobs says which of the applicable gates were not
// verified and why: a working directory gone, an entry point a sparse
// checkout took off the disk, an entry point whose directory the change
// moved or deleted; with none of these, it is the plain stop.
func TestNoGatesNamesTheGatesLeftOut(t *testing.T) {
	jobs := func(ids ...string) []gate.Job {
		var out []gate.Job
		for _, id := range ids {
			out = append(out, gate.Job{ID: id})
		}
		return out
	}
	for _, tc := range []struct {
		name                               string
		applicable, present, offDisk, gone []gate.Job
		want                               string
	}{
		{name: "nothing applied", want: ""},
		{name: "all present, narrowed away", applicable: jobs("check:a:x"), present: jobs("check:a:x"), want: ""},
		{name: "working directory gone", applicable: jobs("check:a:x"),
			want: "the checks whose working directory no longer exists (check:a:x)"},
		{name: "sparse checkout", applicable: jobs("check:a:x"), offDisk: jobs("check:a:x"),
			want: "the gates whose entry point a sparse checkout took off the disk, with changes there (check:a:x)"},
		{name: "directory moved away", applicable: jobs("check:src:t", "review:src:q"), gone: jobs("check:src:t", "review:src:q"),
			want: "the gates of entry points with changes whose directory the change moved or deleted (check:src:t, review:src:q): its directory is gone"},
		{name: "all three", applicable: jobs("check:w:x", "check:s:x", "check:g:x"), offDisk: jobs("check:s:x"), gone: jobs("check:g:x"),
			want: "the checks whose working directory no longer exists (check:w:x); " +
				"the gates whose entry point a sparse checkout took off the disk, with changes there (check:s:x); " +
				"the gates of entry points with changes whose directory the change moved or deleted (check:g:x): its directory is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := noGates(withoutDir(tc.applicable, tc.present, tc.offDisk, tc.gone), tc.offDisk, tc.gone)
			if tc.want == "" {
				if err != stopNoGates {
					t.Fatalf("got %v, want the plain stop", err)
				}
				return
			}
			var s *stop
			if !errors.As(err, &s) || s.message != tc.want || s.status != stopNoGates.status {
				t.Fatalf("got %#v\nwant message %q", err, tc.want)
			}
		})
	}
}

// Every answer of a run with gates names the left-out ones the same way.
func TestLeftOutText(t *testing.T) {
	if got := leftOutText(nil, nil, nil); got != "" {
		t.Errorf("none: %q", got)
	}
	got := leftOutText([]gate.Job{{ID: "check:w:x"}}, []gate.Job{{ID: "check:s:x"}}, []gate.Job{{ID: "check:g:x"}})
	want := "the checks whose working directory no longer exists (check:w:x); the gates whose entry point a sparse checkout took off the disk, with changes there (check:s:x); " +
		"the gates of entry points with changes whose directory the change moved or deleted (check:g:x): its directory is gone"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
