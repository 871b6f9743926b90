package verdicts

import (
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// A change of the projects seen from a directory is told to the session
// that saw it, to every session for NoticeWindow, and only to that session
// after it; a first sight and an unchanged set are no change; another
// directory and another work tree keep their own records.
func TestSeeReach(t *testing.T) {
	common := t.TempDir()
	top := place.Place{CommonDir: common, GitDir: common, TopLevel: "/r"}
	sub := top
	sub.Prefix = "app/"
	other := top
	other.GitDir = common + "/worktrees/w"
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	seen := func(key string, at time.Time) TrustSeen { return TrustSeen{Key: key, Desc: key, At: at} }
	steps := []struct {
		at      place.Place
		key     string
		session string
		when    time.Time
		told    bool
	}{
		{top, "app", "s1", t0, false},
		{top, "app", "s1", t0.Add(time.Minute), false},
		{top, "aaa\napp", "s1", t0.Add(2 * time.Minute), true},
		{top, "aaa\napp", "s1", t0.Add(3 * time.Minute), true},
		{top, "aaa\napp", "s2", t0.Add(4 * time.Minute), true},
		{top, "aaa\napp", "s2", t0.Add(2*time.Minute + NoticeWindow + time.Second), false},
		{top, "aaa\napp", "s1", t0.Add(2*time.Minute + NoticeWindow + time.Second), true},
		{sub, "x", "s1", t0, false},
		{other, "y", "s1", t0, false},
	}
	for i, s := range steps {
		c, err := SeeReach(s.at, seen(s.key, s.when), s.session)
		if err != nil {
			t.Fatal(err)
		}
		if (c != nil) != s.told {
			t.Errorf("step %d (%q, %s): told %v, want %v", i, s.key, s.session, c != nil, s.told)
		}
	}
}

// The project judged from a directory is told when it is not the one the
// last stop from there judged, whatever the session; a first sight and
// the same project again are not; another directory keeps its own.
func TestSeeJudged(t *testing.T) {
	common := t.TempDir()
	top := place.Place{CommonDir: common, GitDir: common, TopLevel: "/r"}
	sub := top
	sub.Prefix = "app/"
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	steps := []struct {
		at      place.Place
		project string
		was     string // "" for no change told
	}{
		{top, "app", ""},
		{top, "app", ""},
		{top, "lib", "app"},
		{top, "lib", ""},
		{top, "app", "lib"},
		{sub, "app", ""},
		{sub, "app", ""},
	}
	for i, s := range steps {
		was, err := SeeJudged(s.at, s.project, t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if was != nil {
			got = was.Project
		}
		if got != s.was {
			t.Errorf("step %d (%s): told %q, want %q", i, s.project, got, s.was)
		}
	}
}
