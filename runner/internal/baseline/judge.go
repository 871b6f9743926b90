package baseline

import (
	"context"
	"fmt"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// Judge decides whether failures of checks with baseline: true are
// pre-existing. It is the check.Judge of a run (Judge.Failure).
type Judge struct {
	// Source gives the base results.
	Source Source
	// Commit finds the base commit; it is asked once per run.
	Commit func(ctx context.Context) (string, error)
	// BaseBranch is what ${BASE_BRANCH} stands for.
	BaseBranch string
	// Where says where the base commit is, with a %s for its short hash
	// (WhereMergeBase when empty).
	Where string

	once   sync.Mutex
	asked  bool
	commit string
	err    error
}

// baseCommit returns the base commit, asking for it once (a canceled
// question is asked again).
func (j *Judge) baseCommit(ctx context.Context) (string, error) {
	j.once.Lock()
	defer j.once.Unlock()
	if !j.asked {
		j.commit, j.err = j.Commit(ctx)
		j.asked = ctx.Err() == nil
	}
	return j.commit, j.err
}

// Where the base commit of each change scope is (Judge.Where).
const (
	// WhereMergeBase: local and CI changes start at the merge base of the
	// base branch and HEAD.
	WhereMergeBase = "on the base branch (merge base %s)"
	// WhereHead: uncommitted changes (-u) start at HEAD.
	WhereHead = "at HEAD (%s), before the uncommitted changes"
	// WhereParent: one commit (-c) starts at its parent.
	WhereParent = "on the commit's parent (%s)"
	// WhereFixBase: a verification run left with only the previous run's
	// changes (committed onto the base branch itself) starts where they
	// started.
	WhereFixBase = "where the verified changes start (%s)"
)

// Messages of the verdicts (one source of truth).
const (
	msgPreExisting = "%s, as %s: pre-existing, not caused by this change"
	msgNew         = "%s; new, not %s: %s"
	msgNoBaseline  = "%s; not compared with the base branch: %s"
	// noteLine is what the log says about the base.
	noteLine = "Baseline: %s.\n"
)

// Failure judges a failed check: unchanged unless its check has baseline:
// true; then pre-existing when the base fails the same way, else a
// failure whose message and log say what differs or why the base could
// not be asked.
func (j *Judge) Failure(ctx context.Context, f check.Failure) (gate.Status, string, *gate.Baseline) {
	msg := f.Outcome.Message
	if !f.Job.Check.Baseline {
		return gate.StatusFail, msg, nil
	}
	commit, err := j.baseCommit(ctx)
	if err != nil {
		return j.unavailable(f, msg, "", err)
	}
	cur, err := Scan(f.Outcome.OutputReader(f.Log), f.Outcome.ExitCode, NewNormalizer(f.Env.Root))
	if err != nil {
		return j.unavailable(f, msg, commit, err)
	}
	base, err := j.Source.Base(ctx, Request{Commit: commit, Job: f.Job, BaseBranch: j.BaseBranch, Log: f.Log})
	if err != nil {
		return j.unavailable(f, msg, commit, err)
	}
	b := &gate.Baseline{Commit: commit}
	if base.Passed {
		b.Reason = "the check passes there"
		if base.Note != "" && base.Note != NoteWorktree {
			b.Reason = fmt.Sprintf("the check passes there (%s)", base.Note)
		}
		fmt.Fprintf(f.Log, noteLine, "the base branch passes this check: the failure is new")
		return gate.StatusFail, fmt.Sprintf(msgNew, msg, j.where(commit), b.Reason), b
	}
	cmp := Compare(cur, base.Fingerprint)
	b.PreExisting, b.Reason, b.NewLines = cmp.PreExisting, cmp.Reason, cmp.New
	if cmp.PreExisting {
		fmt.Fprintf(f.Log, noteLine, "pre-existing, not caused by this change ("+cmp.Reason+"); here for information, nothing to fix")
		return gate.StatusPreExisting, fmt.Sprintf(msgPreExisting, msg, j.where(commit)), b
	}
	fmt.Fprintf(f.Log, noteLine, "a new or changed failure: "+cmp.Reason)
	if len(cmp.New) > 0 {
		fmt.Fprintf(f.Log, "Error lines the base does not print (normalised):\n")
		for _, l := range cmp.New {
			fmt.Fprintf(f.Log, "  %s\n", l)
		}
	}
	return gate.StatusFail, fmt.Sprintf(msgNew, msg, j.where(commit), cmp.Reason), b
}

// where says where commit is (Where).
func (j *Judge) where(commit string) string {
	w := j.Where
	if w == "" {
		w = WhereMergeBase
	}
	return fmt.Sprintf(w, short(commit))
}

// unavailable is the verdict on a failure whose base could not be asked:
// it fails, saying why (never a false approve).
func (j *Judge) unavailable(f check.Failure, msg, commit string, err error) (gate.Status, string, *gate.Baseline) {
	fmt.Fprintf(f.Log, noteLine, "not compared with the base branch: "+err.Error())
	return gate.StatusFail, fmt.Sprintf(msgNoBaseline, msg, err), &gate.Baseline{Commit: commit, Reason: err.Error()}
}
