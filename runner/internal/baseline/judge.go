package baseline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
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
	// Diff gives the change from a commit to the work tree at a root
	// (git.LineDiff when nil).
	Diff func(ctx context.Context, root, commit string) (diff string, cut bool, err error)

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
	msgUnverified  = "%s; not shown to be pre-existing: it fails %s too, but %s"
	// unverifiedReason says why a base failure with Result.Unverified is
	// no evidence.
	unverifiedReason = "the base run had a copy of the work tree's dependencies, and %s"
	// noteLine is what the log says about the base.
	noteLine = "Baseline: %s.\n"
)

// Bounds of the base's share of a run with a deadline (the stop hook's):
// the base run and the reruns stop early enough to leave the run the
// time to end by itself, a failure of the work tree reported as such
// (never the run interrupted, nor an infrastructure error in its place).
const (
	minReserve = 2 * time.Second
	maxReserve = 10 * time.Second
)

// baseContext is ctx with a deadline a reserve before ctx's own (a tenth
// of the time left, between minReserve and maxReserve); an error when no
// time is left for the base before the reserve.
func baseContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	d, ok := ctx.Deadline()
	if !ok {
		c, cancel := context.WithCancel(ctx)
		return c, cancel, nil
	}
	left := time.Until(d)
	reserve := min(max(left/10, minReserve), maxReserve)
	if left <= reserve {
		return nil, nil, deadlineError(fmt.Sprintf("the run's deadline leaves no time to run it on the base (%s left)", left.Round(time.Second)))
	}
	c, cancel := context.WithDeadline(ctx, d.Add(-reserve))
	return c, cancel, nil
}

// deadlineError is the error of a comparison with the base that the
// run's deadline cut: the deadline is the person's setting (the stop
// hook's timeout), nothing the change can fix.
type deadlineError string

func (e deadlineError) Error() string { return string(e) }

// outOfTime is err, said plainly when it came from the base's share of
// the run's time running out (ctx ended, parent not).
func outOfTime(ctx, parent context.Context, err error) error {
	if ctx.Err() != nil && parent.Err() == nil {
		return deadlineError("the base run could not finish before the run's deadline")
	}
	return err
}

// cutRerun is true when only what the run's deadline kept from running
// again stands between v and a verdict: nothing is new, something is
// unverified, and the base's share of the run's time (ctx) ran out.
func cutRerun(ctx, parent context.Context, v findings.Verdict) bool {
	return !v.PreExisting && len(v.New) == 0 && len(v.Unverified) > 0 && ctx.Err() != nil && parent.Err() == nil
}

// maxReruns bounds how often a stopped check runs again (each rerun may
// stop at a later failure), beyond the reruns a chain's parts take
// (rerunBound).
const maxReruns = 3

// rerunBound is how often a check whose command is cmd may run again:
// maxReruns, and one more for each part of a chain after its first, so
// that a base failing every part but the last still has the chain run to
// its end (each rerun gets past at least one failing part). The run's
// deadline stays the real limit.
func rerunBound(cmd string) int {
	if parts, ok := check.ParseChain(cmd); ok {
		return maxReruns + len(parts) - 1
	}
	return maxReruns
}

// Failure judges a failed check: unchanged unless its check has baseline:
// true; then pre-existing when every finding it reports is on the base
// too (findings.Compare), with the tests a failure kept from running run
// again on both sides first (findings.PlanRerun); else a failure whose
// message and log say what is new or why the base could not be asked.
func (j *Judge) Failure(ctx context.Context, f check.Failure) check.Judgement {
	msg := f.Outcome.Message
	if !f.Job.Check.Baseline {
		return check.Judgement{Status: gate.StatusFail, Message: msg}
	}
	commit, err := j.baseCommit(ctx)
	if err != nil {
		return j.unavailable(f, msg, "", err)
	}
	parent := ctx
	ctx, cancel, err := baseContext(parent)
	if err != nil {
		return j.unavailable(f, msg, commit, err)
	}
	defer cancel()
	return j.judged(ctx, parent, f, msg, commit)
}

// judged compares the failure f with the base commit under ctx, the
// base's share of the run's context parent.
func (j *Judge) judged(ctx, parent context.Context, f check.Failure, msg, commit string) check.Judgement {
	diff := j.lineDiff(ctx, f.Env.Root, commit)
	world := World(f.Env.Root, f.Job.WorkingDir, check.Environ(j.BaseBranch))
	base, err := j.Source.Base(ctx, Request{Commit: commit, Job: baseJob(f.Job, diff), BaseBranch: j.BaseBranch, Log: f.Log, World: world})
	if err != nil {
		return j.unavailable(f, msg, commit, outOfTime(ctx, parent, err))
	}
	b := &gate.Baseline{Commit: commit}
	work := f.Findings
	if base.Passed {
		b.Reason = "the check passes there"
		if base.Note != "" && base.Note != NoteWorktree {
			b.Reason = fmt.Sprintf("the check passes there (%s)", base.Note)
		}
		marked := markAll(work, findings.BaselineNew)
		b.NewLines = newLines(marked.Failing())
		fmt.Fprintf(f.Log, noteLine, "the base branch passes this check: the failure is new")
		return check.Judgement{Status: gate.StatusFail, Message: fmt.Sprintf(msgNew, msg, j.where(commit), b.Reason), Baseline: b, Findings: &marked}
	}
	src := sources(ctx, f.Env.Root, commit)
	v := findings.CompareWith(base.Findings, work, diff, src)
	wd := f.Job.WorkingDir
	if wd == "" {
		wd = "."
	}
	cmd, tried := check.Command(f.Job, j.BaseBranch), map[string]bool{}
	// The first runs' exit codes are compared only when they ended at the
	// same part of a chain; else the reruns compare each part's.
	sameEnd := chainRest(work) == chainRest(base.Findings)
	last := lastRun{f.Outcome, cmd}
	failed := []string{last.failedPart()}
	for round, bound := 0, rerunBound(cmd); len(v.Unverified) > 0 && round < bound && ctx.Err() == nil; round++ {
		if why := stoppedOnlyHere(work, base.Findings); why != "" {
			return j.newStep(f, msg, commit, b, v.Work, why)
		}
		plan, err := findings.PlanRerun(cmd, wd, base.Findings, work)
		if err != nil {
			fmt.Fprintf(f.Log, "\nBaseline: the tests a failure kept from running cannot be run again: %v\n", err)
			v.Reason += " (no rerun: " + err.Error() + ")"
			break
		}
		if tried[plan.Command] {
			fmt.Fprintf(f.Log, "\nBaseline: running `%s` again would stop the same way\n", plan.Command)
			break
		}
		tried[plan.Command] = true
		var ok bool
		var why string
		if base, work, last, why, ok = j.rerun(ctx, f, commit, plan, diff, world, base, work, last); !ok {
			break
		}
		if last.cmd == plan.Command {
			failed = append(failed, last.failedPart()) // the work tree ran it
		}
		if plan.Append {
			cmd = plan.Command // what stops now stopped in the parts run again
		}
		v = findings.CompareWith(base.Findings, work, diff, src)
		if why != "" && len(v.New) == 0 {
			return j.newStep(f, msg, commit, b, v.Work, why)
		}
		if why != "" {
			v.PreExisting = false // its new findings say what is new
			break
		}
	}
	if why := stoppedOnlyHere(work, base.Findings); why != "" {
		return j.newStep(f, msg, commit, b, v.Work, why)
	}
	if cutRerun(ctx, parent, v) {
		return j.unavailable(f, msg, commit, deadlineError("running again what a failure kept from running could not finish before the run's deadline"))
	}
	if v.PreExisting && sameEnd && f.Outcome.ExitCode != base.ExitCode {
		v.PreExisting = false
		v.Reason = fmt.Sprintf("it exits with code %d, and with code %d on the base", f.Outcome.ExitCode, base.ExitCode)
	}
	if v.PreExisting && len(base.Unverified) > 0 {
		b.Reason = fmt.Sprintf(unverifiedReason, strings.Join(base.Unverified, "; "))
		fmt.Fprintf(f.Log, noteLine, "not shown to be pre-existing: the base fails the same way, but "+b.Reason)
		marked := markAll(work, findings.BaselineNone)
		return check.Judgement{Status: gate.StatusFail, Message: fmt.Sprintf(msgUnverified, msg, j.where(commit), b.Reason), Baseline: b, Findings: &marked}
	}
	b.PreExisting, b.Reason, b.NewLines = v.PreExisting, v.Reason, newLines(v.New)
	if v.PreExisting {
		fmt.Fprintf(f.Log, noteLine, "pre-existing, not caused by this change ("+v.Reason+"); here for information, nothing to fix")
		if b.Hidden = hidden(failed); b.Hidden != "" {
			fmt.Fprintf(f.Log, noteLine, "not verified: "+b.Hidden)
		}
		return check.Judgement{Status: gate.StatusPreExisting, Message: fmt.Sprintf(msgPreExisting, msg, j.where(commit)), Baseline: b, Findings: &v.Work}
	}
	fmt.Fprintf(f.Log, noteLine, "a new or changed failure: "+v.Reason)
	return check.Judgement{Status: gate.StatusFail, Message: fmt.Sprintf(msgNew, msg, j.where(commit), v.Reason), Baseline: b, Findings: &v.Work}
}

// lastRun is the work tree's latest run of a check's command, first or
// rerun.
type lastRun struct {
	out check.Outcome
	cmd string
}

// failedPart is the part of the run's command that failed: the chain's
// part that stopped it, else its last part, else the whole command; ""
// for a run that passed.
func (l lastRun) failedPart() string {
	if !l.out.Status.Failed() {
		return ""
	}
	if l.out.FailedPart != "" {
		return l.out.FailedPart
	}
	if parts, ok := check.ParseChain(l.cmd); ok {
		return parts[len(parts)-1]
	}
	return l.cmd
}

// hidden says what a pre-existing failure leaves unverified: the first
// of the parts that failed in the work tree (failed) that may have
// stopped at its first failure (findings.MayStopEarly), on the base as
// here, so that what it runs after that ran on neither side; "" when
// every one is known to run all it would.
func hidden(failed []string) string {
	for _, p := range failed {
		if p == "" {
			continue
		}
		if why := findings.MayStopEarly(p); why != "" {
			return fmt.Sprintf("`%s` may stop at its first failure (%s), so what it runs after that ran on neither side", p, why)
		}
	}
	return ""
}

// rerun runs plan (a stopped check's command again, without what
// stopped it: findings.PlanRerun) on the base and, unless the work tree
// already ran it (the rest of a chain the base alone stopped in), on the
// work tree, and merges the results into the first runs', so that each
// side's findings count once. When both sides have now run a chain to the
// same part, why names the part that fails in the work tree's run (last,
// updated) and not the same way in the base's. ok is false when it cannot
// (the log says why).
func (j *Judge) rerun(ctx context.Context, f check.Failure, commit string, plan findings.Rerun, diff *findings.Diff, world string, base Result, work findings.Result, last lastRun) (_ Result, _ findings.Result, _ lastRun, why string, ok bool) {
	workToo := !plan.Append || chainRest(work) == plan.Command
	fmt.Fprintf(f.Log, "\n--- Again without what stopped it: %s ---\n", plan.Command)
	job := f.Job
	chk := *job.Check
	chk.Command, job.Check = plan.Command, &chk
	againWork := work
	if workToo {
		x := check.Exec{Command: plan.Command, Dir: f.Dir, Env: check.Environ(j.BaseBranch),
			Files: check.GivenFiles(f.Job, job.Changed), Timeout: job.Check.Timeout, Log: f.Log}
		began := time.Now()
		out := x.Run(ctx)
		if out.TimedOut || out.Status == gate.StatusError {
			fmt.Fprintf(f.Log, "\nBaseline: the rerun did not finish: %s\n", out.Message)
			return base, work, last, "", false
		}
		againWork, _ = check.ReadFindings(job, plan.Command, f.Env.Root, f.Dir, out, f.Log, began)
		if againWork.Format != work.Format && !plan.Append {
			// Read it as the first run was read.
			chk.Format = work.Format
			againWork, _ = check.ReadFindings(job, plan.Command, f.Env.Root, f.Dir, out, f.Log, began)
		}
		last = lastRun{out, plan.Command}
	} else {
		fmt.Fprintf(f.Log, "(on the base only: the work tree ran it)\n")
	}
	againBase, err := j.Source.Base(ctx, Request{Commit: commit, Job: baseJob(job, diff), BaseBranch: j.BaseBranch, Log: f.Log, World: world})
	if err != nil {
		fmt.Fprintf(f.Log, "\nBaseline: the rerun on the base failed: %v\n", err)
		return base, work, last, "", false
	}
	if againBase.Passed {
		againBase.Findings, againBase.ExitCode = findings.Result{Format: againWork.Format}, 0
	}
	if plan.Append && chainRest(againWork) == chainRest(againBase.Findings) {
		why = partDiffers(last, againBase.ExitCode)
	}
	base.Findings = plan.Merge(base.Findings, againBase.Findings)
	if workToo {
		work = plan.Merge(work, againWork)
	}
	return base, work, last, why, true
}

// partDiffers names the part of the work tree's run last that failed
// when the base's run of the same parts ended with another exit code
// (base, 0 for a pass); "" when last passed or they agree.
func partDiffers(last lastRun, base int) string {
	code := 0
	if last.out.Status.Failed() {
		code = last.out.ExitCode
	}
	part := last.out.FailedPart
	if part == "" {
		part = last.cmd
		if parts, ok := check.ParseChain(last.cmd); ok {
			part = parts[len(parts)-1]
		}
	}
	switch {
	case code == 0 || code == base:
		return ""
	case base == 0:
		return fmt.Sprintf("`%s` fails here and passes on the base", part)
	}
	return fmt.Sprintf("`%s` exits with code %d here, and with code %d on the base", part, code, base)
}

// chainRest is the rest of a chain r's run stopped before ("" when it ran
// to its end).
func chainRest(r findings.Result) string {
	rest := ""
	for _, s := range r.Stops {
		if s.Tool == findings.ToolChain && len(s.Rest) > len(rest) {
			rest = s.Rest
		}
	}
	return rest
}

// stoppedOnlyHere says which part of a chain stopped the work tree's run
// (work) where the base's run (base) went past it: a part that fails only
// in the work tree, a new failure whatever it printed; "" when none did.
// Both runs' rests are ends of the same chain: the longer ran less.
func stoppedOnlyHere(work, base findings.Result) string {
	wr, br := chainRest(work), chainRest(base)
	if len(wr) <= len(br) {
		return ""
	}
	for _, s := range work.Stops {
		if s.Tool == findings.ToolChain && s.Rest == wr {
			part := s.Failed
			if part == "" {
				part = s.Unit
			}
			return fmt.Sprintf("`%s` fails here and passes on the base", part)
		}
	}
	return ""
}

// newStep is the verdict on a failure of which a part fails only in the
// work tree (why says which): new, whatever the findings say.
func (j *Judge) newStep(f check.Failure, msg, commit string, b *gate.Baseline, work findings.Result, why string) check.Judgement {
	b.Reason = why
	fmt.Fprintf(f.Log, noteLine, "a new or changed failure: "+why)
	return check.Judgement{Status: gate.StatusFail, Message: fmt.Sprintf(msgNew, msg, j.where(commit), why), Baseline: b, Findings: &work}
}

// baseJob is job as the base run gets it: its changed files by their
// names at the base (a file the change renamed is given under its old
// name, where its findings on the base are).
func baseJob(job gate.Job, diff *findings.Diff) gate.Job {
	if job.Changed == nil {
		return job
	}
	files := make([]string, len(job.Changed))
	for i, f := range job.Changed {
		files[i] = diff.OldPath(f)
	}
	job.Changed = files
	return job
}

// maxSourceBytes bounds a file read for the text of its flagged lines.
const maxSourceBytes = 4 << 20

// sources reads the files findings point into (paths relative to the
// project root at root): in the work tree, and at the base commit.
func sources(ctx context.Context, root, commit string) *findings.Sources {
	lines := func(b []byte) []string {
		if len(b) > maxSourceBytes {
			return nil
		}
		return strings.Split(string(b), "\n")
	}
	return &findings.Sources{
		Work: func(p string) []string {
			full := filepath.Join(root, filepath.FromSlash(p))
			if !filepath.IsLocal(p) {
				return nil
			}
			if st, err := os.Stat(full); err != nil || !st.Mode().IsRegular() || st.Size() > maxSourceBytes {
				return nil
			}
			b, err := os.ReadFile(full)
			if err != nil {
				return nil
			}
			return lines(b)
		},
		Base: func(p string) []string {
			if !filepath.IsLocal(p) {
				return nil
			}
			objs, err := git.Objects(ctx, root, commit+":./"+p)
			if err != nil || len(objs) != 1 || objs[0].Type != "blob" {
				return nil
			}
			return lines(objs[0].Content)
		},
	}
}

// lineDiff is the change from commit to the work tree at root, line by
// line; an unknown one (every line changed) when git cannot tell.
func (j *Judge) lineDiff(ctx context.Context, root, commit string) *findings.Diff {
	diff := j.Diff
	if diff == nil {
		diff = git.LineDiff
	}
	text, cut, err := diff(ctx, root, commit)
	d := findings.ParseDiff(text)
	if err != nil || cut {
		d.Unknown = true
	}
	return d
}

// maxNewLines bounds Baseline.NewLines.
const maxNewLines = 10

// newLines names new findings for gate.Baseline.NewLines.
func newLines(fs []findings.Finding) []string {
	var out []string
	for i, f := range fs {
		if i == maxNewLines {
			break
		}
		out = append(out, f.Title())
	}
	return out
}

// markAll is r with every failing finding marked b.
func markAll(r findings.Result, b findings.Baseline) findings.Result {
	r.Findings = append([]findings.Finding(nil), r.Findings...)
	for i := range r.Findings {
		if r.Findings[i].Failing() || r.Findings[i].Kind != findings.KindTest {
			r.Findings[i].Baseline = b
		}
	}
	return r
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
// it fails, saying why (never a false approve). A base that could not even
// be checked out (ErrNoWorktree), or whose comparison the run's deadline
// cut (deadlineError), is an infrastructure error instead: the failure is
// not judged (it may be the base's), nothing the change can fix; the run
// says so and the next one asks again.
func (j *Judge) unavailable(f check.Failure, msg, commit string, err error) check.Judgement {
	fmt.Fprintf(f.Log, noteLine, "not compared with the base branch: "+err.Error())
	out := check.Judgement{Status: gate.StatusFail, Message: fmt.Sprintf(msgNoBaseline, msg, err),
		Baseline: &gate.Baseline{Commit: commit, Reason: err.Error()}}
	if errors.Is(err, ErrNoWorktree) || errors.As(err, new(deadlineError)) {
		out.Status, out.Infrastructure = gate.StatusError, true
	}
	return out
}
