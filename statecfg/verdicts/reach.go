package verdicts

import (
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// reachKind is the store's kind of the reach records (SeeReach).
const reachKind = "reach"

// reach is what the stops of the sessions in one directory of one work
// tree judged or named, and its last change: SeeTrust's record, kept by
// the session's directory rather than by a project, because the change it
// tells is the project itself.
type reach struct {
	Seen   *TrustSeen   `json:"seen,omitempty"`
	Change *TrustChange `json:"change,omitempty"`
	// Judged is the project the last stop from the directory judged
	// (SeeJudged).
	Judged *JudgedSeen `json:"judged,omitempty"`
}

// JudgedSeen is the project a stop judged (its place's Project key) and
// when.
type JudgedSeen struct {
	Project string    `json:"project"`
	At      time.Time `json:"at"`
}

// SeeJudged records project as the one a stop whose session is in the
// directory at judged at now, and returns what the last stop from there
// judged when that was another project (nil for none, and for a first
// sight): the projects judged or named from a directory may stay the same
// while the one judged moves among them with the input's directory, and
// the project left behind is for the answer to name.
func SeeJudged(at place.Place, project string, now time.Time) (*JudgedSeen, error) {
	var r reach
	var was *JudgedSeen
	err := store.Open(at.CommonDir, reachKind).Update(&r, func() (bool, error) {
		if r.Judged != nil && r.Judged.Project == project {
			return false, nil
		}
		was, r.Judged = r.Judged, &JudgedSeen{Project: project, At: now}
		return true, nil
	}, at.Worktree(), at.Project())
	return was, err
}

// SeeReach records seen as the trusted projects a stop whose session is in
// dir judges or names (seen.Key tells one set from another, seen.Files
// names each project), and returns the change to tell, as SeeTrust does:
// to the session that first saw it, and to every session for
// NoticeWindow. at is dir's place (its Prefix the directory's, relative to
// the top level). A record that cannot be read reads as none: the next
// stop's set is then a first sight.
func SeeReach(at place.Place, seen TrustSeen, session string) (*TrustChange, error) {
	var r reach
	var c *TrustChange
	err := store.Open(at.CommonDir, reachKind).Update(&r, func() (bool, error) {
		before := r.Seen
		c = see(&r.Seen, &r.Change, seen, session)
		return before == nil || before.Key != seen.Key, nil
	}, at.Worktree(), at.Project())
	return c, err
}
