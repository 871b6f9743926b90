package stophook

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// passes are the statuses of a run that verified the work tree as it is:
// every applicable gate ran and passed, or there was nothing to verify.
// Any other approve leaves something unverified.
var passes = []runner.GauntletStatus{
	runner.StatusPassed, runner.StatusPassedWithWarnings, runner.StatusNoApplicableGates, runner.StatusNoChanges,
}

// maxNamed bounds the gates a message names; the rest are counted.
const maxNamed = 8

// tell is the last step of every answer: it adds to the message (the
// systemMessage of the dialects that show one) how the configuration in
// force stands to the work tree's, and, for every approve that is not a
// pass of the tree as it is, what was not verified; it fills Pending with
// the gates that wait to be verified. A block whose configuration differs
// tells the agent that its edits of .gauntlet/ do not apply. Nothing
// approves silently: that is this function's one job.
func (h *hook) tell(ctx context.Context, out Outcome, f *facts) Outcome {
	var notes []string
	var view pendingView
	if s := f.site; s != nil {
		if note := s.trustNote(out.Block()); note != "" {
			notes = append(notes, note)
		}
		// Without gates (a configuration that does not load, a log
		// directory replaced), the book still names every gate it holds
		// failing; the failure logs are what is known beyond it.
		cfg, ok := gatesOrBook(s.root, s.project)
		if !ok && out.unverified == "" {
			out.unverified = strayLogs(s.root)
		}
		view = pendingFailures(ctx, cfg, h.o.Now())
		if out.Block() && s.differs() && s.source != trust.SourceNone {
			out.Instructions += "\n\n" + editsDoNotApply
		}
	}
	f.failing = view.all()
	others := unjudgedPending(ctx, f.unjudged, f.left, h.o.Now())
	out.Pending = pendingList(view, others)
	if out.Block() && others.text != "" {
		notes = append(notes, "Also pending: "+others.text+".")
	}
	if !out.Block() {
		hidden := ""
		if f.site != nil {
			hidden = f.site.hidden
			if w := f.site.workReadUnverified(); w != "" {
				out.unverified = strings.TrimPrefix(out.unverified+"; "+w, "; ")
			}
		}
		changed, committed := "", ""
		if f.site != nil {
			changed = unjudgedChanged(ctx, f.site.root, f.unjudged)
			committed = unjudgedCommitted(ctx, f.site.root, f.unjudged)
		}
		for _, part := range []string{f.site.untrustedUnverified(), others.text, changed, committed} {
			if part != "" {
				hidden = strings.TrimPrefix(hidden+"; "+part, "; ")
			}
		}
		if note := unverifiedNote(out, view, hidden); note != "" {
			notes = append(notes, note)
		}
		if note := retryLimitNote(out.Status, f.site); note != "" {
			notes = append(notes, note)
		}
	}
	// A held directory replaced (owned.Hold), or removed and made again
	// (owned.HoldRemade), is told by every answer, once: an approve's "Not
	// verified" may name it already.
	for _, note := range []string{owned.ReplacedNote(), owned.RemadeNote()} {
		if note != "" && !strings.Contains(out.Message+" "+strings.Join(notes, " "), note) {
			notes = append(notes, note+".")
		}
	}
	said := out.Message + " " + strings.Join(notes, " ")
	notes = append(notes, h.deliverNotices(ctx, f.site, f.session, onceNotices(out, f.site), said, out.Block())...)
	if len(notes) > 0 {
		out.Message += " " + strings.Join(notes, " ")
		out.told = true
	}
	return out
}

// editsDoNotApply is what a block adds when the work tree's configuration
// is not the one the stop hook runs.
const editsDoNotApply = "**Your edits of .gauntlet/ do not apply.** The stop hook runs the trusted configuration; " +
	"a changed, weakened or deleted .gauntlet/ in the work tree changes nothing until a person runs " +
	"`agent-gauntlet trust`. Fix the code, not the gates."

// unverifiedNote says what an approve did not verify ("" for a pass of
// the work tree as it is with nothing pending and nothing the answer says
// is unverified): the gates still failing,
// the verdicts dropped without a passing run since, the files changed
// ignore rules may hide (hidden), else
// what the answer says (out.unverified), else the work tree as it is now.
func unverifiedNote(out Outcome, view pendingView, hidden string) string {
	pass := false
	for _, s := range passes {
		pass = pass || out.Status == s
	}
	if (pass || out.asPassed) && view.empty() && out.unverified == "" && hidden == "" {
		return ""
	}
	// At the retry limit no gate runs: the failures are those last seen,
	// and what changed since is said beside them (runner's sinceLastRun).
	limit := out.Status == runner.StatusRetryLimitExceeded
	var parts []string
	if n := len(out.noVerdict); n > 0 {
		parts = append(parts, fmt.Sprintf("%d gate(s) that reached no verdict (%s)", n, named(out.noVerdict)))
	}
	if n := len(view.Gates); n > 0 && limit {
		parts = append(parts, fmt.Sprintf("%d gate(s) failing when the gates last ran (%s)", n, named(view.Gates)))
	} else if n > 0 {
		parts = append(parts, fmt.Sprintf("%d gate(s) failing since an earlier run (%s)", n, named(view.Gates)))
	}
	if c := view.Cleared; c != nil && len(c.Jobs) == 0 {
		parts = append(parts, fmt.Sprintf("whatever was pending before %s (%s), with no passing run since",
			stamp(c.At), runner.SafeText(c.Reason)))
	} else if c != nil {
		what := fmt.Sprintf("%d gate(s) whose failures were dropped at %s (%s) with no passing run since",
			len(c.Jobs), stamp(c.At), runner.SafeText(c.Reason))
		if len(c.Jobs) > 0 {
			what += " (" + named(c.Jobs) + ")"
		}
		parts = append(parts, what)
	}
	switch {
	case out.unverified != "" && (pass || limit || len(parts) == 0):
		parts = append(parts, out.unverified)
	case len(parts) == 0 && (!pass || hidden == ""):
		parts = append(parts, "the work tree as it is now")
	}
	if hidden != "" {
		parts = append(parts, hidden)
	}
	return "Not verified: " + strings.Join(parts, "; ") + "."
}

// retryLimitNote names the retry limit that ended the episode, where it
// is set, and that no gate runs at the session's later stops.
func retryLimitNote(status runner.GauntletStatus, s *site) string {
	if status != runner.StatusRetryLimitExceeded || s == nil {
		return ""
	}
	cfg, err := s.gates()
	if err != nil {
		return ""
	}
	where := "the trusted .gauntlet/config.yml"
	if s.source == trust.SourceNone {
		where = "the work tree's .gauntlet/config.yml, which is not trusted"
	}
	return fmt.Sprintf("The limit is max_retries: %d (%d runs per episode for each agent session), from %s. "+
		"No gate runs at this session's stops any more until a new commit starts a fresh budget; another agent session has a budget of its own.",
		cfg.MaxRetries, cfg.MaxRetries+1, where)
}

// named lists gates, at most maxNamed, the rest counted.
func named(gates []string) string { return namedUpTo(gates, maxNamed) }

// namedUpTo lists items, at most n, the rest counted.
func namedUpTo(items []string, n int) string {
	shown := items[:min(len(items), n)]
	safe := make([]string, len(shown))
	for i, g := range shown {
		safe[i] = runner.SafeText(g)
	}
	text := strings.Join(safe, ", ")
	if more := len(items) - len(shown); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return text
}

// stamp is a time as messages write it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// maxChangedNamed bounds the changed paths an interval's approve names.
const maxChangedNamed = 5

// sinceLastPass completes out, an approve in the interval, with what
// changed since the last full pass of the session's project s (settings
// cfg, base branch base): nothing (the approve answers for the tree as it
// is, and says so), else the changed paths, HEAD, base branch and
// configuration, the files outside the work tree the checks name, as what
// was not verified; when that is not known, the
// changes since the pass.
func (h *hook) sinceLastPass(ctx context.Context, s *site, cfg *config.Config, base string, out Outcome) Outcome {
	gates, err := s.gates()
	if err != nil {
		gates = nil
		h.warn("cannot tell what changed since the last full pass: %v", err)
	}
	since, err := runner.SinceFullPass(ctx, gates, base)
	if err != nil {
		h.warn("cannot tell what changed since the last full pass: %v", err)
	}
	at := ""
	if !since.At.IsZero() {
		at = " at " + stamp(since.At)
	}
	switch {
	case !since.Known:
		st, err := state.Read(cfg.LogDirPath())
		if err == nil && st != nil && !st.LastFullPassAt.IsZero() {
			at = " at " + stamp(st.LastFullPassAt)
		}
		out.unverified = "the changes since the last full pass" + at
	case since.Unchanged() && s.hidden != "":
		// What git shows is the same, but ignore rules changed since: what
		// they hide is no change git can show (hiddenUnverified says it).
		out.Message += " Nothing git shows changed since the last full pass" + at + ", but the ignore rules did."
	case since.Unchanged():
		out.asPassed = true
		out.Message += " Nothing changed since the last full pass" + at +
			": the work tree, HEAD, the base branch and the configuration are the ones it verified."
	default:
		var what []string
		if n := len(since.Paths); n > 0 {
			what = append(what, fmt.Sprintf("%d changed path(s) (%s)", n, namedUpTo(since.Paths, maxChangedNamed)))
		}
		if since.ReachMoved {
			through := ""
			if len(since.Reaching) > 0 {
				through = " (through " + namedUpTo(since.Reaching, maxChangedNamed) + ")"
			}
			what = append(what, "a file a symbolic link leads to that the work tree does not hold: outside it, or ignored"+through)
		}
		if since.Unheld != "" {
			what = append(what, "the work tree, which cannot be compared whole: "+runner.SafeText(since.Unheld))
		}
		if since.KeyMoved && len(since.Paths) == 0 && !since.ReachMoved && since.Unheld == "" {
			what = append(what, "the work tree (what the gates can read in it)")
		}
		if n := len(since.Outside); n > 0 {
			what = append(what, fmt.Sprintf("%d file(s) outside the work tree that a check names, changed or not held (%s)", n, namedUpTo(since.Outside, maxChangedNamed)))
		}
		if since.HeadMoved {
			what = append(what, "a new HEAD")
		}
		if since.BaseMoved {
			what = append(what, "the base branch "+runner.SafeText(base)+" moved")
		}
		if since.ConfigChanged {
			what = append(what, "the configuration in force changed")
		}
		if n := len(since.Uncached); n > 0 {
			what = append(what, fmt.Sprintf("%d gate(s) the cache never keeps (%s), which read what no snapshot holds, did not run again", n, named(since.Uncached)))
		}
		out.unverified = "since the last full pass" + at + ", " + strings.Join(what, ", ")
	}
	if since.Unanchored != "" {
		// The pass could not look at them, whatever changed since.
		out.asPassed = false
		out.unverified = strings.TrimPrefix(out.unverified+"; "+runner.SafeText(since.Unanchored), "; ")
	}
	return out
}

// disabledDetail says what disabled the stop hook: the variable, the
// global configuration (and when it changed), or the project's
// configuration in force (and how it came to be trusted).
func (h *hook) disabledDetail(settings config.StopHook, s *site) string {
	return "The gates did not run: stop_hook.enabled is false, set by " +
		h.origin(settings.From.Enabled, s, config.EnvStopHookEnabled) + "."
}

// origin names the source of a stop-hook setting: envVar with its value,
// the global configuration's file and when it changed, the project's
// configuration in force (trusted, or the work tree's when nothing is), or
// the default.
func (h *hook) origin(from config.Origin, s *site, envVar string) string {
	switch from {
	case config.OriginEnv:
		return fmt.Sprintf("the environment variable %s=%s", envVar, runner.SafeText(h.o.Getenv(envVar)))
	case config.OriginGlobal:
		path := config.GlobalPath(h.o.Getenv)
		if fi, err := os.Stat(path); err == nil {
			return fmt.Sprintf("the global configuration %s (changed %s)", runner.SafeText(path), stamp(fi.ModTime()))
		}
		return "the global configuration " + runner.SafeText(path)
	case config.OriginProject:
		if s.source == trust.SourceNone {
			return "the work tree's .gauntlet/config.yml, which is not trusted"
		}
		return "the trusted .gauntlet/config.yml (" + trustedWhen(*s.trust) + ")"
	}
	return "the default"
}

// noVerdict are the job ids of gates that erred for a reason the run
// counts as infrastructure (runner.GateResult.Infrastructure): what an
// infrastructure error leaves unverified, however it came about (the
// gate's own output can claim it wanted a person).
func noVerdict(gates []runner.GateResult) []string {
	var ids []string
	for _, g := range gates {
		if g.Infrastructure && g.Status == runner.GateError {
			ids = append(ids, g.JobID)
		}
	}
	return ids
}

// unfinished are the job ids of the gates of a run the deadline or a
// signal cut that reached no verdict (neither passed nor failed): what
// the approve leaves unverified, named (a gate's own process can send
// the signal, and os/signal does not tell who sent it).
func unfinished(gates []runner.GateResult) []string {
	var ids []string
	for _, g := range gates {
		if g.Status != runner.GatePass && g.Status != runner.GateFail && g.Status != runner.GatePreExisting {
			ids = append(ids, g.JobID)
		}
	}
	return ids
}
