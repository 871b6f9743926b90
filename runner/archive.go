package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// archiveAfterPass archives the logs after a passing run that may
// (mayArchive), keeping the execution state, and reports whether it did.
func (e *execution) archiveAfterPass(jobs []gate.Job) bool {
	if !e.mayArchive(jobs) {
		return false
	}
	if _, err := archive(e.logDir, CleanAllPassed, e.debug); err != nil {
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

// mayArchive reports whether a passing run may archive the logs. A run that
// covered every gate (all kinds, no -g, no --working-directory, no -c;
// --uncommitted narrows the changes, not the gates) may. A run of one kind
// (check, review), one gate (-g) or one working directory may only when
// every pending gate log belongs to a gate it just ran, and passed:
// otherwise other gates' pending failures would be archived unverified. A -c run checks a commit, not the work tree, and
// never archives.
func (e *execution) mayArchive(jobs []gate.Job) bool {
	if e.opts.Commit != "" {
		return false
	}
	if e.opts.Kinds == KindsAll && e.opts.Gate == "" && e.opts.WorkingDir == "" {
		return true
	}
	names, err := logdir.Scan(e.logDir)
	if err != nil {
		return false
	}
	for _, n := range names {
		if n.IsGate() && !ranLog(n, jobs) {
			return false
		}
	}
	return true
}

// ranLog reports whether the gate file name belongs to one of jobs: a
// check's log, or a review's slot log or JSON.
func ranLog(n logdir.Name, jobs []gate.Job) bool {
	for _, j := range jobs {
		if j.ID == n.Job && (j.Kind == gate.KindCheck) == (n.Kind == logdir.KindJobLog) {
			return true
		}
	}
	return false
}
