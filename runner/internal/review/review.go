// Package review runs review gates: the diff of an entry point goes, with
// the review prompt, to one or more AI CLIs (num_reviews slots, round-robin
// over healthy adapters); their JSON answers are parsed, filtered to the
// lines the diff adds, and written as slot logs and review JSON files that
// the agent edits and the next run verifies.
//
// The runner starts a Session per run, calls its Run per review job, and
// PendingSlots once per run; the health command calls Health (see
// runner.Health).
package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Gate and slot messages.
const (
	// MsgNoChanges is the message of a review whose diff is empty.
	MsgNoChanges = "No changes to review"
	// msgNothingShown is the message of a review whose diff is empty
	// while paths of its scope changed: they are named as not shown.
	msgNothingShown = "Nothing reviewed: %d changed path(s) could not be shown to the reviewer"
	// MsgNoHealthy starts the error of a review without a usable CLI; the
	// list of adapters tried follows.
	MsgNoHealthy    = "no healthy review CLI available (tried: %s)"
	msgNoConfig     = "review job %s has no review configuration"
	msgSkippedPrior = "Skipped: previously passed in iteration %d"
	msgPassed       = "Passed"
	msgGateError    = "Error in %d of %d review(s): %s"
	msgGateFail     = "Failed by %d of %d review(s): %d violation(s)"
	suffixPrior     = " (%d skipped due to prior pass)"
	suffixSkipped   = " (%d violation(s) skipped by the agent)"
)

// MaxParallelSlots bounds the slots of one parallel review gate that run
// at the same time; the others wait for a free place, in slot order.
const MaxParallelSlots = 4

// DiffFunc returns the review diff of spec limited to scope: its text,
// and the changed paths it does not show as text.
type DiffFunc func(ctx context.Context, root string, spec gate.DiffSpec, scope git.Scope) (git.ReviewDiff, error)

// deps are the effects Run depends on (replaced in tests).
type deps struct {
	diff   DiffFunc
	invoke func(ctx context.Context, spec adapter.Spec, req adapter.Request) (adapter.Answer, error)
	check  checkFunc
	now    func() time.Time
}

// realDeps are the real effects.
func realDeps() deps {
	return deps{diff: git.Diff, invoke: adapter.Invoke, check: adapter.Check, now: time.Now}
}

// Session runs the review gates of one run. They share what the session
// learns about the review CLIs: each adapter is checked (and probed, with
// cli.check_usage_limit) once, and one that hits a usage limit stays out of
// service for every later slot and gate of the run, and no longer.
type Session struct {
	d       deps
	book    *book
	answers Answers
}

// NewSession starts the review gates of a new run.
func NewSession() *Session { return newSession(realDeps()) }

// newSession is NewSession with the effects of d.
func newSession(d deps) *Session { return &Session{d: d, book: newBook(d.check)} }

// WithAnswers lets the session take reviewers' answers from a, and keep
// theirs there: a question asked before, word for word, of the same
// adapter and model, is not asked (and paid for) again. Reviews with
// cache: false always ask.
func (s *Session) WithAnswers(a Answers) *Session {
	s.answers = a
	return s
}

// Run runs one review job and returns its result, one Slot per review.
// env.Previous tells the mode: nil on a first run, non-nil (maybe empty) in
// verification mode, where the slot's pending violations go into the
// prompt, slots that passed before are skipped (num_reviews > 1, with the
// safety latch) and the agent's skips of the previous run are reported in
// Result.Skipped. Run never writes to env.Console; the runner prints the
// result lines from the returned Result. It is safe for concurrent use.
func (s *Session) Run(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
	answers := s.answers
	if job.Review != nil && job.Review.Cache == config.CacheOff {
		answers = nil
	}
	return run(ctx, job, env, s.d, s.book, answers)
}

// gateRun is one review job in progress.
type gateRun struct {
	d       deps
	job     gate.Job
	env     gate.Env
	rv      *config.Review
	diff    string
	changed parse.Diff
	book    *book
	// verification is true when env.Previous is set.
	verification bool
	// prefs are the adapters to try, in order; probe asks for the usage probe.
	prefs []string
	probe bool
	// header lines open every slot log.
	header []string
	// answers are the reviewers' earlier answers (nil: always ask).
	answers Answers
}

// slotRun is the outcome of one slot, with its log still open for the
// gate-level result line.
type slotRun struct {
	slot gate.Slot
	log  *slotLog
}

func run(ctx context.Context, job gate.Job, env gate.Env, d deps, b *book, answers Answers) gate.Result {
	start := d.now()
	res := gate.Result{JobID: job.ID}
	done := func(status gate.Status, msg string) gate.Result {
		res.Status, res.Message, res.Duration = status, msg, d.now().Sub(start)
		return res
	}
	if job.Review == nil {
		return done(gate.StatusError, fmt.Sprintf(msgNoConfig, job.ID))
	}
	rd, err := d.diff(ctx, env.Root, env.Diff, entry.JobScope(job))
	if err != nil {
		// git failing, a snapshot that could not be taken: the reviewer
		// was never asked, nothing the agent can fix.
		res.Infrastructure = true
		return done(gate.StatusError, err.Error())
	}
	// Every path of the change set in scope is shown or named, whatever
	// the diff's own builder found.
	rd = git.Account(rd, job.Listed)
	// Whatever the reviewers say, they said nothing of what they were
	// not shown: the result names it, whatever its status.
	res.NotShown = rd.NotShown
	diff := rd.Text
	if strings.TrimSpace(diff) == "" {
		if len(rd.NotShown) > 0 {
			return done(gate.StatusPass, fmt.Sprintf(msgNothingShown, len(rd.NotShown)))
		}
		return done(gate.StatusPass, MsgNoChanges)
	}
	diff += notShownNote(rd.NotShown)
	g := &gateRun{
		d: d, job: job, env: env, rv: job.Review, diff: diff, changed: parse.ParseDiff(diff),
		book: b, verification: env.Previous != nil, answers: answers,
	}
	g.prefs = job.Review.CLIPreference
	if env.Config != nil {
		if len(g.prefs) == 0 {
			g.prefs = env.Config.CLI.DefaultPreference
		}
		g.probe = env.Config.CLI.CheckUsageLimit
	}

	n := max(job.Review.NumReviews, 1)
	g.header = append(g.header,
		"Starting review: "+job.Name,
		"Entry point: "+job.EntryPoint,
		"Diff: "+describeDiff(env.Diff),
	)
	for _, n := range rd.NotShown {
		g.header = append(g.header, "Not shown to the reviewer: "+n.String())
	}
	toRun, skipped := g.planSlots(n)

	// When every slot's question was answered before by the adapter it
	// goes to with every adapter healthy, no adapter is checked (a usage
	// probe is a paid question too).
	healthy := g.prefs
	if !g.allAnswered(toRun) {
		healthy = g.healthy(ctx)
	}
	if len(healthy) == 0 {
		res.Infrastructure = true
		return done(gate.StatusError, fmt.Sprintf(MsgNoHealthy, strings.Join(g.prefs, ", ")))
	}
	assigned := make(map[int]string, len(toRun))
	var dispatch []string
	for _, i := range toRun {
		assigned[i] = healthy[(i-1)%len(healthy)]
		dispatch = append(dispatch, fmt.Sprintf("%s@%d", assigned[i], i))
	}
	g.header = append(g.header, fmt.Sprintf("Dispatching %d review(s) via round-robin: %s", len(toRun), strings.Join(dispatch, ", ")))

	runs := make([]slotRun, 0, n)
	for _, s := range skipped {
		runs = append(runs, g.skipSlot(s))
	}
	results := make([]slotRun, len(toRun))
	if job.Review.Parallel && len(toRun) > 1 {
		// At most MaxParallelSlots reviewers at a time: each is a process
		// of its own (a Node.js CLI holds hundreds of MB) calling a rate
		// limited model API.
		sem := make(chan struct{}, MaxParallelSlots)
		var wg sync.WaitGroup
		for k, i := range toRun {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				results[k] = g.runSlot(ctx, i, assigned[i])
			}()
		}
		wg.Wait()
	} else {
		for k, i := range toRun {
			results[k] = g.runSlot(ctx, i, assigned[i])
		}
	}
	runs = append(runs, results...)
	slices.SortFunc(runs, func(a, b slotRun) int { return a.slot.Index - b.slot.Index })

	status, msg := g.verdict(runs, n)
	res.Infrastructure = status == gate.StatusError && infrastructureOnly(runs)
	for _, r := range runs {
		res.Slots = append(res.Slots, r.slot)
		res.ErrorCount += r.slot.ErrorCount
		res.TimedOut = res.TimedOut || r.slot.TimedOut
		res.Fixed = append(res.Fixed, r.slot.Fixed...)
		res.Skipped = append(res.Skipped, r.slot.Skipped...)
		res.BelowThreshold = append(res.BelowThreshold, r.slot.BelowThreshold...)
		if r.log != nil {
			r.log.Printf("Gate result: %s - %s", status, msg)
			_ = r.log.Close()
		}
	}
	return done(status, msg)
}

// skipPlan is a slot skipped because it passed before.
type skipPlan struct {
	index         int
	adapter       string
	passIteration int
	// belowThreshold are what that pass left out under the rerun
	// threshold: the skip tells them again.
	belowThreshold []gate.Violation
}

// planSlots decides which slots run. In verification mode with more than
// one slot, a slot whose latest verdict was a pass (env.Previous, from the
// gauntlet's own records), whatever its adapter, is skipped; when every
// slot passed, slot 1 runs anyway (the safety latch).
func (g *gateRun) planSlots(n int) (toRun []int, skipped []skipPlan) {
	if !g.verification || n < 2 {
		for i := 1; i <= n; i++ {
			toRun = append(toRun, i)
		}
		return toRun, nil
	}
	allPassed := true
	for i := 1; i <= n; i++ {
		if _, ok := g.env.Previous.SlotPassed(g.job.ID, i); !ok {
			allPassed = false
		}
	}
	for i := 1; i <= n; i++ {
		r, ok := g.env.Previous.SlotPassed(g.job.ID, i)
		if !ok || (allPassed && i == 1) {
			toRun = append(toRun, i)
			continue
		}
		skipped = append(skipped, skipPlan{index: i, adapter: r.Adapter, passIteration: r.Run, belowThreshold: r.BelowThreshold})
	}
	if allPassed {
		g.header = append(g.header, "Running @1: safety latch (all slots previously passed)")
	}
	for _, s := range skipped {
		g.header = append(g.header, fmt.Sprintf("Skipping @%d: previously passed in iteration %d (num_reviews > 1)", s.index, s.passIteration))
	}
	return toRun, skipped
}

// healthy returns the usable adapters in preference order and notes the
// others in the header.
func (g *gateRun) healthy(ctx context.Context) []string {
	var ok []string
	for _, name := range g.prefs {
		spec, known := adapter.Lookup(name)
		if !known {
			g.header = append(g.header, fmt.Sprintf("Skipping %s: unknown review CLI", name))
			continue
		}
		if h := g.book.health(ctx, spec, g.env.Root, g.probe); !h.OK() {
			g.header = append(g.header, fmt.Sprintf("Skipping %s: %s", name, h.Message))
			continue
		}
		ok = append(ok, name)
	}
	return ok
}

// nextHealthy returns the first healthy adapter after failed in preference
// order (wrapping around) that was not tried yet, or "".
func (g *gateRun) nextHealthy(ctx context.Context, failed string, tried []string) string {
	start := 0
	for i, name := range g.prefs {
		if name == failed {
			start = i + 1
		}
	}
	for k := range g.prefs {
		name := g.prefs[(start+k)%len(g.prefs)]
		spec, known := adapter.Lookup(name)
		if !known || slices.Contains(tried, name) {
			continue
		}
		if g.book.health(ctx, spec, g.env.Root, g.probe).OK() {
			return name
		}
	}
	return ""
}

// openLog creates a slot log and writes the shared header.
func (g *gateRun) openLog(adapterName string, index int) (*slotLog, error) {
	lg, err := createSlotLog(g.env.Names.SlotLog(g.job.ID, adapterName, index, g.env.RunNumber).Path(g.env.LogDir), g.env.Pending, g.d.now)
	if err != nil {
		return nil, err
	}
	for _, h := range g.header {
		lg.Printf("%s", h)
	}
	return lg, nil
}

// skipSlot writes the log and JSON of a slot skipped for a prior pass.
func (g *gateRun) skipSlot(s skipPlan) slotRun {
	slot := gate.Slot{
		Adapter: s.adapter, Index: s.index, Status: gate.StatusSkippedPriorPass,
		Message: fmt.Sprintf(msgSkippedPrior, s.passIteration), PassIteration: s.passIteration,
		BelowThreshold: s.belowThreshold,
	}
	lg, err := g.openLog(s.adapter, s.index)
	if err != nil {
		// The gauntlet's own log, not the review, failed.
		slot.Status, slot.Message = gate.StatusError, err.Error()
		slot.ErrorCount, slot.Infrastructure = 1, true
		return slotRun{slot: slot}
	}
	slot.LogPath = lg.path
	lg.Printf("Review skipped: previously passed in iteration %d", s.passIteration)
	lg.Printf("Adapter: %s", s.adapter)
	lg.Printf("Review index: @%d", s.index)
	lg.Printf("%s", markStatusSkip)
	for _, v := range s.belowThreshold {
		lg.Printf("%s%s:%s (%s) - %s", markBelowThreshold, v.File, parse.LineText(v.Line), v.Priority, oneLine(v.Issue))
	}
	jsonPath := g.env.Names.SlotJSON(g.job.ID, s.adapter, s.index, g.env.RunNumber).Path(g.env.LogDir)
	err = writeSlotFile(jsonPath, SlotFile{
		Adapter: s.adapter, Timestamp: g.d.now().UTC().Format(timestampFormat),
		Status: gate.StatusSkippedPriorPass, PassIteration: s.passIteration,
	})
	if err != nil {
		lg.Printf("Error: %v", err)
	} else {
		slot.JSONPath = jsonPath
	}
	return slotRun{slot: slot, log: lg}
}

// runSlot runs review index on adapterName and times it.
func (g *gateRun) runSlot(ctx context.Context, index int, adapterName string) slotRun {
	start := g.d.now()
	r := g.reviewSlot(ctx, index, adapterName)
	r.slot.Duration = g.d.now().Sub(start)
	return r
}

// reviewSlot runs review index on adapterName; when the answer shows a usage
// limit, the adapter leaves service for the rest of the run and the next
// healthy one takes the slot.
func (g *gateRun) reviewSlot(ctx context.Context, index int, adapterName string) slotRun {
	in := g.slotInput(index)
	previous, skippedBefore, prompt, stdin := in.previous, in.skippedBefore, in.prompt, in.stdin

	var tried []string
	name := adapterName
	for {
		tried = append(tried, name)
		slot := gate.Slot{Adapter: name, Index: index}
		spec, _ := adapter.Lookup(name)
		stored, answered := g.answer(name, index, stdin)
		// Another slot may have taken the adapter out of service meanwhile;
		// an answer at hand needs no adapter.
		healthy := answered || g.book.health(ctx, spec, g.env.Root, g.probe).OK()
		if !healthy {
			if next := g.nextHealthy(ctx, name, tried); next != "" {
				name = next
				continue
			}
		}
		lg, err := g.openLog(name, index)
		if err != nil {
			// Not asked: the gauntlet's own log could not be made.
			slot.Status, slot.Message, slot.ErrorCount = gate.StatusError, err.Error(), 1
			slot.Infrastructure = true
			return slotRun{slot: slot}
		}
		slot.LogPath = lg.path
		if !healthy {
			return g.noHealthySlot(slot, lg)
		}
		lg.Printf("[START] %s (%s@%d)", g.job.ID, name, index)
		lg.Printf("Command: %s", quoteArgs(append([]string{spec.Binary}, spec.Argv(g.env.Root, g.rv.Model)...)))
		lg.Printf("Stdin: prompt of %d bytes, diff of %d bytes", len(prompt), len(g.diff))
		if len(previous) > 0 {
			lg.Printf("Verifying %d previous violation(s)", len(previous))
		}
		if len(skippedBefore) > 0 {
			lg.Printf("Skipped by the agent: %d violation(s)", len(skippedBefore))
		}
		var ans adapter.Answer
		var runErr error
		if answered {
			ans = adapter.Answer{Text: stored.Text, Stdout: stored.Stdout}
			lg.Printf("Answer: from the result cache, given %s ago to exactly this question; %s was not asked again",
				console.Age(g.d.now().Sub(stored.At)), name)
		} else {
			ans, runErr = g.d.invoke(ctx, spec, adapter.Request{
				Root: g.env.Root, Model: g.rv.Model, Stdin: stdin, Timeout: g.rv.Timeout, Log: lg,
			})
		}
		var ev evaluation
		if runErr == nil && ans.Failure() == "" {
			ev = evaluate(evalInput{
				text: ans.Text, changed: g.changed, root: g.env.Root, previous: previous,
				skippedBefore: skippedBefore, threshold: g.threshold(), skips: g.env.Skips,
			})
		}
		if phrase := ans.LimitPhrase(); phrase != "" && (runErr != nil || ans.Failure() != "" || ev.status == gate.StatusError) {
			g.book.markUnhealthy(name, adapter.MsgUsageLimit)
			lg.Printf("Usage limit reached (%q): %s is out of service for the rest of this run", phrase, name)
			next := g.nextHealthy(ctx, name, tried)
			if next == "" {
				return g.noHealthySlot(slot, lg)
			}
			lg.Printf("Handing review @%d to %s", index, next)
			_ = lg.Close()
			name = next
			continue
		}
		if !answered && runErr == nil && ans.Failure() == "" && ev.status != gate.StatusError && g.answers != nil {
			g.answers.Keep(name, g.rv.Model, index, stdin, StoredAnswer{Text: ans.Text, Stdout: ans.Stdout, At: g.d.now()})
		}
		return g.finishSlot(slot, lg, ans, runErr, ev, answered)
	}
}

// slotInput is what the reviewer of one slot is asked, and what its
// answer is judged against.
type slotInput struct {
	// previous are the slot's violations pending verification;
	// skippedBefore those the agent skipped in its last failing verdict.
	previous, skippedBefore []gate.Violation
	// prompt and stdin are the question.
	prompt, stdin string
}

// slotInput is the question of slot index.
func (g *gateRun) slotInput(index int) slotInput {
	in := slotInput{previous: g.env.Previous.SlotViolations(g.job.ID, index),
		skippedBefore: g.env.Previous.SlotSkipped(g.job.ID, index)}
	in.prompt = BuildPrompt(g.rv.Prompt, in.previous)
	in.stdin = Stdin(in.prompt, g.diff)
	return in
}

// noHealthySlot ends a slot that no healthy adapter is left for; the
// message names every adapter of the preference, as the gate-level one.
func (g *gateRun) noHealthySlot(slot gate.Slot, lg *slotLog) slotRun {
	msg := fmt.Sprintf(MsgNoHealthy, strings.Join(g.prefs, ", "))
	lg.Printf("%s%s", markSlotError, msg)
	slot.Status, slot.Message, slot.ErrorCount = gate.StatusError, msg, 1
	slot.Infrastructure = true
	lg.Printf("Review result (%s@%d): %s - %s", slot.Adapter, slot.Index, slot.Status, slot.Message)
	return slotRun{slot: slot, log: lg}
}

// finishSlot logs the outcome of an answer, writes the slot JSON and fills
// the slot.
func (g *gateRun) finishSlot(slot gate.Slot, lg *slotLog, ans adapter.Answer, runErr error, ev evaluation, answered bool) slotRun {
	name, index := slot.Adapter, slot.Index
	switch {
	case runErr != nil:
		// Failed to start, timed out or cancelled.
		ev = evaluation{status: gate.StatusError, message: runErrMessage(runErr)}
		slot.Infrastructure = true
		slot.TimedOut = errors.Is(runErr, proc.ErrTimeout)
	case ans.Failure() != "":
		// Exited non-zero, or reported an error in its envelope.
		ev = evaluation{status: gate.StatusError, message: ans.Failure()}
		slot.Infrastructure = true
	case ans.Text == ans.Stdout && !answered:
		lg.Printf("--- Review Output (%s) --- (streamed above)", name)
	default:
		lg.Printf("--- Review Output (%s) ---", name)
		lg.Printf("%s", ans.Text)
	}
	if ev.unusable {
		// An answer without a verdict: the reviewer failed, as a crash.
		slot.Infrastructure = true
	}
	if ans.Usage != nil {
		lg.Printf("Usage: %s", ans.Usage.String())
	}
	for _, n := range ev.notes {
		lg.Printf("%s", n)
	}
	if runErr == nil && ans.Failure() == "" && ev.found {
		// As a crash, an answer without a JSON object leaves no review JSON:
		// there is nothing in it for the agent to mark.
		jsonPath := g.env.Names.SlotJSON(g.job.ID, name, index, g.env.RunNumber).Path(g.env.LogDir)
		err := writeSlotFile(jsonPath, SlotFile{
			Adapter: name, Timestamp: g.d.now().UTC().Format(timestampFormat),
			Status: ev.status, RawOutput: ans.Stdout, Violations: ev.stored,
		})
		if err != nil {
			lg.Printf("Error: %v", err)
		} else {
			slot.JSONPath = jsonPath
		}
	}
	slot.Status, slot.Message = ev.status, ev.message
	slot.Open, slot.Fixed, slot.Skipped, slot.BelowThreshold = ev.open, ev.fixed, ev.skipped, ev.belowThreshold
	lg.Printf("--- Parsed Result (%s) ---", name)
	switch ev.status {
	case gate.StatusFail:
		slot.ErrorCount = len(ev.open)
		slot.Open = ev.open
		lg.Printf("%s", markStatusFail)
		if slot.JSONPath != "" {
			lg.Printf("Review: %s", slot.JSONPath)
		}
		lg.Printf("Violations:")
		for i, v := range ev.open {
			lg.Printf("%d. %s:%s - %s", i+1, v.File, parse.LineText(v.Line), oneLine(v.Issue))
			if v.Fix != "" {
				lg.Printf("   %s%s", markFix, oneLine(v.Fix))
			}
		}
	case gate.StatusPass:
		lg.Printf("%s", markStatusPass)
		lg.Printf("Message: %s", ev.message)
	default:
		slot.ErrorCount = 1
		lg.Printf("Status: %s", ev.status)
		lg.Printf("%s%s", markSlotError, ev.message)
	}
	for _, v := range ev.fixed {
		lg.Printf("Fixed: %s:%s - %s", v.File, parse.LineText(v.Line), oneLine(v.Issue))
	}
	for _, v := range ev.skipped {
		lg.Printf("Skipped: %s:%s - %s", v.File, parse.LineText(v.Line), oneLine(v.Issue))
	}
	for _, v := range ev.belowThreshold {
		lg.Printf("%s%s:%s (%s) - %s", markBelowThreshold, v.File, parse.LineText(v.Line), v.Priority, oneLine(v.Issue))
	}
	lg.Printf("%s", separatorLine)
	lg.Printf("Review result (%s@%d): %s - %s", name, index, slot.Status, slot.Message)
	return slotRun{slot: slot, log: lg}
}

// threshold is the configured rerun_new_issue_threshold.
func (g *gateRun) threshold() config.Priority {
	if g.env.Config != nil && g.env.Config.RerunNewIssueThreshold != "" {
		return g.env.Config.RerunNewIssueThreshold
	}
	return config.DefaultRerunNewIssueThreshold
}

// verdict combines the slots: any error makes the gate an error, else any
// failure a failure, else it passes.
func (g *gateRun) verdict(runs []slotRun, n int) (gate.Status, string) {
	var errs, fails, prior, open, skippedViolations int
	firstErr := ""
	for _, r := range runs {
		switch r.slot.Status {
		case gate.StatusError:
			errs++
			if firstErr == "" {
				firstErr = fmt.Sprintf("%s@%d: %s", r.slot.Adapter, r.slot.Index, r.slot.Message)
			}
		case gate.StatusFail:
			fails++
			open += r.slot.ErrorCount
		case gate.StatusSkippedPriorPass:
			prior++
		}
		skippedViolations += len(r.slot.Skipped)
	}
	switch {
	case errs > 0:
		if n == 1 {
			return gate.StatusError, runs[0].slot.Message
		}
		return gate.StatusError, fmt.Sprintf(msgGateError, errs, n, firstErr)
	case fails > 0:
		if n == 1 {
			return gate.StatusFail, runs[0].slot.Message
		}
		return gate.StatusFail, fmt.Sprintf(msgGateFail, fails, n, open)
	}
	msg := msgPassed
	if n == 1 {
		msg = runs[0].slot.Message
	}
	if prior > 0 {
		msg += fmt.Sprintf(suffixPrior, prior)
	}
	if skippedViolations > 0 {
		msg += fmt.Sprintf(suffixSkipped, skippedViolations)
	}
	return gate.StatusPass, msg
}

// infrastructureOnly reports whether every slot error in runs is of the
// infrastructure kind (see gate.Result.Infrastructure) and no slot failed:
// a violation is for the agent to act on; a reviewer that crashed, timed
// out or answered without a verdict is not.
func infrastructureOnly(runs []slotRun) bool {
	found := false
	for _, r := range runs {
		switch r.slot.Status {
		case gate.StatusFail:
			return false
		case gate.StatusError:
			if !r.slot.Infrastructure {
				return false
			}
			found = true
		}
	}
	return found
}

// runErrMessage words a failed invocation: a timeout as a timeout.
func runErrMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "+proc.ErrTimeout.Error()); i >= 0 && strings.Contains(msg, "timed out after") {
		return msg[:i]
	}
	return msg
}

// describeDiff says what a diff compares, for the log header.
func describeDiff(spec gate.DiffSpec) string {
	switch git.EffectiveMode(spec) {
	case gate.DiffFixBase:
		return "changes since the previous run (snapshot " + short(spec.FixBase) + ")"
	case gate.DiffUncommitted:
		return "uncommitted changes (staged, unstaged and untracked)"
	case gate.DiffCommit:
		return "commit " + spec.Commit
	case gate.DiffCI:
		return spec.BaseBranch + "..." + spec.Head
	}
	return "changes against " + spec.BaseBranch + " (committed, uncommitted and untracked)"
}

// short abbreviates a SHA.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// quoteArgs renders argv for a log line, quoting arguments with spaces or
// shell-special characters.
func quoteArgs(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`{}()*?[]|&;<>") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}
