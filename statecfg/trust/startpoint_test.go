package trust

import "testing"

// TestStartPointOnlyAPersons checks, over every way a configuration comes
// to be trusted and every source, the invariant: a start point is the
// commit of a record a person made; an adoption from HEAD (recorded or
// not yet) and no record anchor nothing.
func TestStartPointOnlyAPersons(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, how := range []How{HowTerminal, HowYes, HowInit, HowHEAD} {
		want := commit
		if how == HowHEAD {
			want = ""
		}
		r := &Record{How: how, Commit: commit}
		if got := r.StartPoint(); got != want {
			t.Errorf("Record{How: %s}.StartPoint() = %q, want %q", how, got, want)
		}
		for _, src := range []Source{SourceRecord, SourceHEAD, SourceNone} {
			w := want
			if src != SourceRecord {
				w = ""
			}
			s := &Status{Source: src, How: how, Commit: commit}
			if got := s.StartPoint(); got != w {
				t.Errorf("Status{Source: %s, How: %s}.StartPoint() = %q, want %q", src, how, got, w)
			}
		}
	}
	var none *Record
	if got := none.StartPoint(); got != "" {
		t.Errorf("nil Record's StartPoint() = %q", got)
	}
	var noStatus *Status
	if got := noStatus.StartPoint(); got != "" {
		t.Errorf("nil Status's StartPoint() = %q", got)
	}
}
