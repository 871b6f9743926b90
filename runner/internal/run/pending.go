package run

import "os"

// pendingLogs makes the run's directory of the check logs being written
// (gate.Env.Pending), and what removes it. It lies outside the project's
// work tree and its git directory (which a check's `grep -r .` reads as
// well): a fresh directory in the system's temporary directory, holding
// only logs whose commands still run, each moved into the log directory
// as its command ends. Where it cannot be made, "" writes the logs in
// place, as before.
func pendingLogs() (string, func()) {
	dir, err := os.MkdirTemp("", "agent-gauntlet-logs-")
	if err != nil {
		return "", func() {}
	}
	return dir, func() { _ = os.RemoveAll(dir) }
}
