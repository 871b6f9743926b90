package verdicts

import (
	"encoding/json"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// BaselineKind is the store's kind of the projects' baselines (Baseline).
const BaselineKind = "baseline"

// Baseline is what a stop of one project compares with when the book of
// its work tree holds nothing yet (the project's first stop, a new work
// tree's): one per project, shared by every work tree of the repository,
// so that what the agent does before such a stop is never the baseline it
// is compared with. agent-gauntlet trust and init record it when it holds
// nothing; every stop of the project keeps it up to date.
type Baseline struct {
	// Trust is the trusted configuration the last stop of the project ran
	// with, in any work tree, or, before any stop, the one first recorded
	// by trust or init; TrustChange is the last change of it between two
	// stops (SeeTrust's rule), for a new book to tell on. Stopped says a
	// stop saw Trust, not only trust or init.
	Trust       *TrustSeen   `json:"trust,omitempty"`
	TrustChange *TrustChange `json:"trust_change,omitempty"`
	Stopped     bool         `json:"stopped,omitempty"`
	// Rules are the ignore rules the last stop that listed them saw, in
	// any work tree, or, before any stop, those trust or init saw; the
	// caller names each rule file so that every work tree reads the same
	// name for the same rule.
	Rules *TrustSeen `json:"rules,omitempty"`
}

// SeeTrust records seen as the trusted configuration a stop of session
// runs with (Book.SeeTrust).
func (b *Baseline) SeeTrust(seen TrustSeen, session string) {
	see(&b.Trust, &b.TrustChange, seen, session)
	b.Stopped = true
}

// ReadBaseline is the baseline of project in the repository whose git
// common directory is commonDir; an empty one when there is none or it
// cannot be read (a stop then says it has nothing to compare with).
func ReadBaseline(commonDir, project string) Baseline {
	var b Baseline
	if ok, err := store.Open(commonDir, BaselineKind).Read(&b, project); !ok || err != nil {
		return Baseline{}
	}
	return b
}

// UpdateBaseline changes the baseline of project under a lock; change
// reports whether it changed anything to write.
func UpdateBaseline(commonDir, project string, change func(b *Baseline) bool) error {
	var b Baseline
	return store.Open(commonDir, BaselineKind).Update(&b, func() (bool, error) { return change(&b), nil }, project)
}

// Baselines are the baselines of every project of the repository whose
// git common directory is commonDir that can be read, in no order: what
// was trusted there, whatever is left of the projects.
func Baselines(commonDir string) []Baseline {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(store.Open(commonDir, BaselineKind).Path("x")), "*.json"))
	var out []Baseline
	for _, f := range files {
		var b Baseline
		data, err := fsread.File(f, MaxBookBytes)
		if err == nil && json.Unmarshal(data, &b) == nil {
			out = append(out, b)
		}
	}
	return out
}
