package run

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// CleanReason says why the logs are archived; it is the reason of the debug
// log's CLEAN event.
type CleanReason string

// The reasons to archive the logs: after a passing run, before a run whose
// previous context is gone (auto-clean), and on `agent-gauntlet clean`.
const (
	CleanAllPassed     CleanReason = "all_passed"
	CleanBranchChanged CleanReason = "branch changed"
	CleanCommitMerged  CleanReason = "commit merged"
	CleanUserRequest   CleanReason = "user_request"
)

// kind is the CLEAN event's type: manual for the clean command, else auto.
func (r CleanReason) kind() string {
	if r == CleanUserRequest {
		return "manual"
	}
	return "auto"
}

// Archive is the one way logs are archived: it moves the gauntlet's own
// logs of logDir into previous/ for reason, the execution state too except
// after a pass (CleanAllPassed keeps it), and records a CLEAN event when
// anything moved. root is the project root logDir was judged against (no
// link may lead the archive out of it). The Result's warnings name the
// entries left in place, for the caller to print. The caller holds the run
// lock.
func Archive(root, logDir string, reason CleanReason, debug *debuglog.Log) (logdir.Result, error) {
	res, err := logdir.Clean(root, logDir, reason != CleanAllPassed)
	if res.Archived {
		debug.Clean(reason.kind(), string(reason))
	}
	return res, err
}

// archiveAfterPass archives the logs after a passing run that may
// (mayArchive, decided by the caller), keeping the execution state, and
// reports whether it did.
func archiveAfterPass(s *services, p *project) bool {
	res, err := Archive(p.root, p.logDir, CleanAllPassed, p.debug)
	printKept(s, res)
	if err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("cannot archive the logs: %v", err))
		return false
	}
	return true
}

// archived is where the log file at path is after archiving logDir: in
// previous/ when it was moved there, else path ("" stays "").
func archived(logDir, path string) string {
	if path == "" || filepath.Dir(path) != logDir {
		return path
	}
	moved := filepath.Join(logDir, logdir.PreviousDir, filepath.Base(path))
	if _, err := os.Stat(moved); err != nil {
		return path
	}
	return moved
}

// printKept warns about each entry an archive left in place (not the
// gauntlet's own).
func printKept(s *services, res logdir.Result) {
	for _, w := range res.Warnings {
		s.cons.Printf(lineWarning, w)
	}
}

// mayArchive reports whether a passing run may archive the logs. A full
// run (fullRun: every gate that applies to the work tree) may. A partial
// run (check, review, -g, --working-directory, and -u or -b, which narrow
// the changes and so the gates) may only when its verdicts left nothing
// pending in the verdict book: otherwise other gates' pending failures
// would be archived unverified. So may a full run that left an applicable
// gate out (leftOut: its working directory or entry point is not on the
// disk), whose pending failure it did not verify. A -c run checks a past
// commit, not the work tree, and never archives.
func mayArchive(p *project, b *begun, leftOut bool) bool {
	if p.pastCommit() {
		return false
	}
	if p.fullRun() && !leftOut {
		return true
	}
	pending, _ := b.rec.Book.Pending(p.logDir, p.env, func(job string) bool { return b.jobs.has(job) })
	return pending.Empty()
}
