package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// archiveAfterPass archives the logs after a passing run that may
// (mayArchive, decided by the caller), keeping the execution state, and
// reports whether it did.
func (e *execution) archiveAfterPass() bool {
	res, err := archive(e.root, e.logDir, CleanAllPassed, e.debug)
	e.printKept(res)
	if err != nil {
		e.cons.Printf(lineWarning, fmt.Sprintf("cannot archive the logs: %v", err))
		return false
	}
	return true
}

// archived is where the log file at path is after archiving: in previous/
// when it was moved there, else path ("" stays "").
func (e *execution) archived(path string) string {
	if path == "" || filepath.Dir(path) != e.logDir {
		return path
	}
	moved := filepath.Join(e.logDir, logdir.PreviousDir, filepath.Base(path))
	if _, err := os.Stat(moved); err != nil {
		return path
	}
	return moved
}

// printKept warns about each entry an archive left in place (not the
// gauntlet's own).
func (e *execution) printKept(res logdir.Result) {
	for _, w := range res.Warnings {
		e.cons.Printf(lineWarning, w)
	}
}

// mayArchive reports whether a passing run may archive the logs. A full
// run (fullRun: every gate that applies to the work tree) may. A partial
// run (check, review, -g, --working-directory, and -u or -b, which narrow
// the changes and so the gates) may only when every pending gate log
// belongs to a gate it just ran, and passed: otherwise other gates'
// pending failures would be archived unverified. A -c run checks a past
// commit, not the work tree, and never archives.
func (e *execution) mayArchive(jobs []gate.Job) bool {
	if e.pastCommit() {
		return false
	}
	if e.fullRun() {
		return true
	}
	names, err := logdir.Scan(e.logDir)
	if err != nil {
		return false
	}
	for _, n := range names {
		if n.IsGate() && !ranLog(n, e.names, jobs) {
			return false
		}
	}
	return true
}

// ranLog reports whether the gate file name, named by jn, belongs to one of
// jobs: a check's log, or a review's slot log or JSON.
func ranLog(n logdir.Name, jn *logdir.JobNames, jobs []gate.Job) bool {
	job, ok := jn.JobOf(n)
	if !ok {
		return false
	}
	for _, j := range jobs {
		if j.ID == job && (j.Kind == gate.KindCheck) == (n.Kind == logdir.KindJobLog) {
			return true
		}
	}
	return false
}
