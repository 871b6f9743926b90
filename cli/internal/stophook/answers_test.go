package stophook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// TestAnswersRecordKeepsTheLastOfEachSession generates sequences of
// answers over sessions: status lists exactly one answer per session, the
// newest first, each the session's last, at most maxAnswered sessions
// (the oldest dropped), and a message past maxAnswerText is cut, saying
// so, never dropped.
func TestAnswersRecordKeepsTheLastOfEachSession(t *testing.T) {
	for _, sessions := range []int{1, 3, maxAnswered, maxAnswered + 3} {
		t.Run(fmt.Sprint(sessions), func(t *testing.T) {
			root := gatedProject(t, "")
			h := &hook{o: Options{Now: func() time.Time { return now }}.withDefaults()}
			ctx := context.Background()
			for round := range 2 {
				for i := range sessions {
					msg := fmt.Sprintf("answer %d to s%d", round, i)
					if i == 0 {
						msg += strings.Repeat("x", maxAnswerText)
					}
					h.noteAnswer(ctx, root, fmt.Sprintf("s%d", i), Outcome{Status: runner.StatusPassed, Message: msg})
				}
			}
			got := Judgment{}
			got.Root = root
			answers := got.Answers(ctx)
			if want := min(sessions, maxAnswered); len(answers) != want {
				t.Fatalf("%d answers listed, want %d", len(answers), want)
			}
			for k, a := range answers {
				i := sessions - 1 - k
				if a.Session != fmt.Sprintf("s%d", i) || !strings.HasPrefix(a.Message, fmt.Sprintf("answer 1 to s%d", i)) {
					t.Errorf("answer %d: %s %q, want the last to s%d", k, a.Session, a.Message[:min(len(a.Message), 40)], i)
				}
				if i == 0 && !strings.HasSuffix(a.Message, "(cut: the whole answer was on the hook's stderr)") {
					t.Errorf("a long answer is not cut, saying so: %d bytes", len(a.Message))
				}
			}
		})
	}
}

// TestAnswersRecordKeepsRetryLimits: an approve at the retry limit lets
// an agent stop with gates failing, and Cursor and Copilot CLI show a
// person nothing of it: whatever number of later answers to other
// sessions (stop hooks run by hand under made-up ids), status still lists
// it while fewer than maxAnswered such approves are recorded after it.
func TestAnswersRecordKeepsRetryLimits(t *testing.T) {
	for _, later := range []int{1, maxAnswered - 1, maxAnswered, 3 * maxAnswered} {
		t.Run(fmt.Sprint(later), func(t *testing.T) {
			root := gatedProject(t, "")
			h := &hook{o: Options{Now: func() time.Time { return now }}.withDefaults()}
			ctx := context.Background()
			h.noteAnswer(ctx, root, "real", Outcome{Status: runner.StatusRetryLimitExceeded, Message: "gave up"})
			for i := range later {
				status := runner.StatusFailed
				if i%2 == 0 {
					status = runner.StatusPassed
				}
				h.noteAnswer(ctx, root, fmt.Sprintf("fake%d", i), Outcome{Status: status, Message: "made up"})
			}
			j := Judgment{}
			j.Root = root
			answers := j.Answers(ctx)
			if len(answers) != min(later+1, maxAnswered) {
				t.Errorf("%d answers listed, want %d", len(answers), min(later+1, maxAnswered))
			}
			if !slices.ContainsFunc(answers, func(a Answer) bool { return a.Session == "real" && a.Message == "gave up" }) {
				t.Errorf("the retry limit's approve was pushed out by %d later answers", later)
			}
			if answers[0].Session != fmt.Sprintf("fake%d", later-1) {
				t.Errorf("the newest answer is not listed first: %+v", answers[0])
			}
		})
	}
}
