package run

import (
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// loadPending reads what earlier runs left to verify in logDir, its files
// named by jn: the checks whose latest log failed and the review slots
// whose latest verdict failed, of gate gateName only when it is not empty.
// The warnings name unreadable files and unknown violation statuses.
func loadPending(logDir string, jn *logdir.JobNames, gateName string) (*gate.Pending, []string, error) {
	names, err := logdir.Scan(logDir)
	if err != nil {
		return &gate.Pending{}, nil, err
	}
	keep := func(job string) bool { return gateName == "" || gate.IsOfGate(job, gateName) }
	slots, warnings := review.PendingSlots(logDir, names, jn, keep)
	return &gate.Pending{Checks: check.Failing(logDir, names, jn, keep), Slots: slots}, warnings, nil
}
