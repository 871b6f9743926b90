package stophook

import (
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// statusText is what the hook says for one status.
type statusText struct {
	// text is the one-line message; a detail, when there is one, follows it.
	text string
	// routine marks outcomes nobody needs to be told about (see
	// hookproto.Response.Routine).
	routine bool
}

// texts is the one source of truth of the stop hook's status messages:
// every status has one.
var texts = map[runner.GauntletStatus]statusText{
	runner.StatusPassed:              {"✓ Gauntlet passed — every gate passed.", true},
	runner.StatusPassedWithWarnings:  {"✓ Gauntlet passed with warnings — some review issues were skipped.", false},
	runner.StatusNoApplicableGates:   {"✓ Gauntlet passed — no gate applies to the changed files.", true},
	runner.StatusNoChanges:           {"✓ Gauntlet passed — no changes to verify.", true},
	runner.StatusFailed:              {"✗ Gauntlet failed — the issues must be fixed before stopping.", false},
	runner.StatusRetryLimitExceeded:  {"⚠ Gauntlet gave up — retry limit exceeded; a human should review the remaining issues.", false},
	runner.StatusLockExists:          {"⏭ Gauntlet skipped — another gauntlet run is in progress.", true},
	runner.StatusIntervalNotElapsed:  {"⏭ Gauntlet skipped — the run interval has not elapsed since the last run.", true},
	runner.StatusNoConfig:            {"○ Not a gauntlet project — no .gauntlet/config.yml found.", true},
	runner.StatusStopHookActive:      {"↺ Stop hook already active — allowing the stop to prevent an infinite loop.", true},
	runner.StatusStopHookDisabled:    {"○ Stop hook disabled — the gauntlet was not run.", true},
	runner.StatusInvalidInput:        {"⚠ Invalid hook input — it is not a JSON object; allowing the stop.", false},
	runner.StatusInfrastructureError: {"⚠ Gauntlet could not run — allowing the stop.", false},
	runner.StatusError:               {"⚠ Stop hook error — allowing the stop.", false},
}

// maxDetail bounds the detail of a message, in runes.
const maxDetail = 500

// Message is the hook's one-line message for status, followed by detail
// when given (white space runs folded to one space, at most maxDetail runes).
func Message(status runner.GauntletStatus, detail string) string {
	t, ok := texts[status]
	if !ok {
		t = statusText{text: fmt.Sprintf("Gauntlet status %s.", status)}
	}
	detail = strings.Join(strings.Fields(detail), " ")
	if r := []rune(detail); len(r) > maxDetail {
		detail = string(r[:maxDetail-1]) + "…"
	}
	if detail != "" {
		return t.text + " " + detail
	}
	return t.text
}

// Routine reports whether status needs nobody's attention.
func Routine(status runner.GauntletStatus) bool { return texts[status].routine }

// Termination conditions: the console's final status lines that let the
// agent stop (the runner prints them verbatim).
var terminationConditions = []string{"Status: Passed", "Status: Passed with warnings", "Status: Retry limit exceeded"}

// Instructions is what a block tells the agent. consoleLog is the absolute
// path of the run's console.N.log, "" when there is none.
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
		"1. Find the failed gates in the console log (`[FAIL]` and `[ERROR]` lines).\n" +
		"2. A failed check: read the `.log` file named on its `Log:` line and fix the cause.\n" +
		"3. A failed review: open the `.json` file named on its `Review:` line. For each violation, fix it and " +
		"set `\"status\": \"fixed\"` with a `\"result\"` note saying what you changed, or decline it and set " +
		"`\"status\": \"skipped\"` with a `\"result\"` note saying why.\n" +
		"4. Try to stop again; the hook re-runs the gates.\n\n")
	b.WriteString("Termination conditions — you may stop once the console log of a run ends with one of:\n")
	for _, c := range terminationConditions {
		fmt.Fprintf(&b, "- `%s`\n", c)
	}
	b.WriteString("After `Status: Retry limit exceeded`, stop and tell the user which issues remain: a human has to decide what happens next.")
	return b.String()
}
