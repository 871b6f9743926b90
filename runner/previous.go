package runner

import (
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
)

// failedChecks returns the ids of the checks whose latest log failed, as
// LoadPrevious filed them (under review.CheckKey).
func failedChecks(previous map[string]map[string][]gate.Violation) map[string]bool {
	failing := map[string]bool{}
	for id, slots := range previous {
		if _, ok := slots[review.CheckKey]; ok && gate.KindOf(id) == gate.KindCheck {
			failing[id] = true
		}
	}
	return failing
}
