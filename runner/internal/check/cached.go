package check

import (
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// MsgNotRunCached says, in a cached check's log, why the command did not
// run; MsgNotRunCachedPreExisting says it for a failure the base branch
// has too.
const (
	MsgNotRunCached            = "Not run: the result cache holds a pass for exactly this input."
	MsgNotRunCachedPreExisting = "Not run: the result cache holds this failure, pre-existing on the base branch, for exactly this input; the proving run's log has its output."
)

// WriteCached writes the log of check job for a result the cache held
// (res, with Cached set): the usual header, the line naming the run that
// proved it (proof) and the closing `Result: pass - ...` (or
// `pre_existing`) line a run writes,
// so that everything that reads the logs sees the check pass in this run.
// It returns res with its log path, or an error result when the log cannot
// be written.
func WriteCached(env gate.Env, job gate.Job, res gate.Result, proof string) gate.Result {
	res.LogPath = LogPath(env, job)
	failed := func(err error) gate.Result {
		// The gauntlet's own log, not the check, failed.
		return gate.Result{JobID: job.ID, Status: gate.StatusError, ErrorCount: 1, LogPath: res.LogPath, Message: err.Error(),
			Infrastructure: true}
	}
	f, err := openLog(env, job, Command(job, env.Diff.BaseBranch))
	if err != nil {
		return failed(err)
	}
	why := MsgNotRunCached
	if res.Status == gate.StatusPreExisting {
		why = MsgNotRunCachedPreExisting
		if res.Baseline != nil && res.Baseline.Reason != "" {
			why += "\nBaseline: pre-existing, not caused by this change (" + res.Baseline.Reason + "); here for information, nothing to fix."
		}
		if res.Baseline != nil && res.Baseline.Hidden != "" {
			why += "\nBaseline: not verified: " + res.Baseline.Hidden + "."
		}
	}
	if _, err := fmt.Fprintf(f, "%s\n%s\n", proof, why); err != nil {
		f.Close()
		return failed(fserr.Wrap("write check log", res.LogPath, err))
	}
	finish(f, job, &res)
	return res
}
