package verdicts

import (
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
