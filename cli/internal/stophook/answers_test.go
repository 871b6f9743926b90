package stophook

import (
	"context"
	"fmt"
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
