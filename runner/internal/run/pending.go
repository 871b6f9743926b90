package run

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// pendingLogs makes the run's directory of the check logs being written
// (gate.Env.Pending) outside the project at root (logdir.MakePending:
// neither the log directory nor the git directory, which a check's `grep
// -r .` reads too), and what removes it. It holds only logs whose
// commands still run, each moved into the log directory as its command
// ends. Where it cannot be made, "" writes the logs in place.
func pendingLogs(root string) (string, func()) {
	dir, err := logdir.MakePending(root, "logs")
	if err != nil {
		return "", func() {}
	}
	return dir, func() { _ = os.RemoveAll(dir) }
}
