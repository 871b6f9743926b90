package stophook

import (
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// ConfigInstructions is what a block tells the agent when its change broke
// the .gauntlet/ configuration: problems are the configuration's problems,
// one per line, as config.ErrorText gives them.
func ConfigInstructions(problems string) string {
	var b strings.Builder
	b.WriteString("**GAUNTLET FAILED — THE .gauntlet/ CONFIGURATION NO LONGER LOADS. YOU MUST FIX IT NOW.**\n\n")
	b.WriteString("The configuration the stop hook trusts (the one recorded by `agent-gauntlet trust`, or committed at " +
		"HEAD) loads; the one in the work tree does not, so your change broke it. You cannot stop until it loads " +
		"again and the gates pass. Fix these problems in the files they name (or restore the committed version of " +
		"a file you did not mean to change):\n\n")
	b.WriteString(problems)
	b.WriteString("\n\nThen try to stop again: this hook loads the configuration again and runs the gates. " +
		"Do not run the gauntlet yourself.")
	return b.String()
}

// WorkTreeInstructions is what a block tells the agent when the run failed
// before its gates on what its change put in the work tree (problem says
// which paths, and how to undo it).
func WorkTreeInstructions(problem string) string {
	var b strings.Builder
	b.WriteString("**GAUNTLET FAILED — YOUR CHANGE PUT IN THE WORK TREE WHAT NO GATE CAN JUDGE. YOU MUST FIX IT NOW.**\n\n")
	b.WriteString(problem)
	b.WriteString("\n\nThen try to stop again: this hook runs the gates. Do not run the gauntlet yourself.")
	return b.String()
}

// The commands a block names for the agent's side of a failed review.
const (
	UpdateListCommand = `agent-gauntlet update-review list`
	UpdateFixCommand  = `agent-gauntlet update-review fix <id> "<what you changed>"`
	UpdateSkipCommand = `agent-gauntlet update-review skip <id> "<why>"`
)

// BlockReason is what a block tells the agent: the Instructions, then what
// failed (Excerpt of the run's gate results), then the failures the base
// branch has too (PreExistingNote), the same in every dialect.
func BlockReason(consoleLog string, gates []runner.GateResult) string {
	reason := Instructions(consoleLog)
	if ex := Excerpt(gates); ex != "" {
		reason += "\n\n" + ex
	}
	if note := PreExistingNote(gates); note != "" {
		reason += "\n\n" + note
	}
	return reason
}

// Instructions is what every block tells the agent. consoleLog
// is the absolute path of the run's console.N.log, "" when there is none.
func Instructions(consoleLog string) string {
	var b strings.Builder
	b.WriteString("**GAUNTLET FAILED — YOU MUST FIX ISSUES NOW.**\n\n")
	b.WriteString("You cannot stop yet: the quality gates did not pass. Stopping stays blocked until the gates " +
		"pass or one of the termination conditions below holds. Do not run the gauntlet yourself: when you try " +
		"to stop again, this hook will automatically re-run it and verify your fixes.\n\n")
	if consoleLog != "" {
		fmt.Fprintf(&b, "**Console log:** `%s`\nRead it first: it holds the full output of this run, "+
			"with the path of every failed gate's log.\n\n", consoleLog)
	} else {
		b.WriteString("**Console log:** none was written; the failed gates' logs are in the log directory.\n\n")
	}
	b.WriteString("**Review trust level: medium.** Fix every issue you reasonably agree with, and every real " +
		"bug, security or correctness problem. Skip an issue only when it is purely stylistic or subjective, " +
		"or when you are confident the reviewer is wrong, and say why.\n\n")
	b.WriteString("Steps:\n" +
		"1. Read what failed, below (`agent-gauntlet status` shows it too); the console log has the whole run, " +
		"with every failed gate on a `[FAIL]` or `[ERROR]` line.\n" +
		"2. A failed check: fix the cause. Its full log is the `.log` file named below and on its `Log:` line.\n" +
		"3. A failed review: for each violation, fix it and run `" + UpdateFixCommand + "`, or decline it and run `" +
		UpdateSkipCommand + "` (`" + UpdateListCommand + "` lists them with their ids). " +
		"If those commands are unavailable, edit the `.json` file named on its `Review:` line instead: set " +
		"`\"status\": \"fixed\"` with a `\"result\"` note saying what you changed, or `\"status\": \"skipped\"` " +
		"with a `\"result\"` note saying why.\n" +
		"4. Try to stop again; the hook re-runs the gates.\n\n")
	b.WriteString("Termination conditions — you may stop once the console log of a run ends with one of:\n")
	for _, s := range runner.TerminationStatuses {
		fmt.Fprintf(&b, "- `%s`\n", runner.StatusLine(s))
	}
	fmt.Fprintf(&b, "After `%s`, stop and tell the user which issues remain: a human has to decide what happens next.",
		runner.StatusLine(runner.StatusRetryLimitExceeded))
	return b.String()
}

// PreExistingTitle opens PreExistingNote.
const PreExistingTitle = "**Not caused by this change — here for information:**"

// PreExistingNote tells the agent which failures it must neither fix nor
// stop over: the checks that fail as they do on the base branch
// (baseline: true). "" when there is none.
func PreExistingNote(gates []runner.GateResult) string {
	var b strings.Builder
	for _, g := range gates {
		if g.Status != runner.GatePreExisting {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(PreExistingTitle + " these checks fail the same way on the base branch. Do not fix them " +
				"and do not stop over them: they do not block. Mention them to the user if relevant.\n")
		}
		fmt.Fprintf(&b, "- `%s`: %s (log: %s)\n", runner.SafeText(g.JobID), runner.SafeText(g.Message), runner.SafeText(g.LogPath))
	}
	return strings.TrimRight(b.String(), "\n")
}
