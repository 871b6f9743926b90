//go:build unix

package lifecycle

import (
	"fmt"
	"strings"
	"testing"
)

// TestProjectGoneWithoutRecord generates the class of a project with no
// trust record whose configuration the agent removes and commits, with a
// stop before the commit or after it. Invariant: clean and detect find a
// project exactly where the stop hook does; a stop that runs while a
// config.yml is committed at HEAD records it, and the sandbox stays a
// project whatever the work tree holds since (clean works); a stop that
// finds no record, none at HEAD and none in the work tree records nothing
// and answers that this is no gauntlet project, and then clean and detect
// refuse with the same words (exit 2). The table crosses: .gauntlet/
// deleted, or only its config.yml, and committed, or .gauntlet/ deleted
// and left uncommitted (HEAD's is adopted); the first stop before the commit, a
// stop killed in the middle of a gate before it (it had recorded the
// configuration), a run by hand ended by a signal before it (it records
// nothing), or none before it; clean or detect after a stop.
func TestProjectGoneWithoutRecord(t *testing.T) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	known := signaturesIn(pendingDir)
	for _, gone := range []string{"delete", "config-rm", "delete-uncommitted"} {
		for _, before := range []string{"none", "hook s1 false", "signal KILL hook", "signal TERM run"} {
			for _, cmd := range []string{"clean", "detect"} {
				name := strings.Join([]string{gone, strings.ReplaceAll(before, " ", "-"), cmd}, "/")
				text := projectGoneSequence(gone, before, cmd)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					r, err := parseReplay(text)
					if err != nil {
						t.Fatal(err)
					}
					replaySteps(t, r, known)
				})
			}
		}
	}
}

// projectGoneSequence is the replay of one member of the class
// TestProjectGoneWithoutRecord generates.
func projectGoneSequence(gone, before, cmd string) string {
	var b strings.Builder
	b.WriteString("config max_retries=3 interval=0 baseline=false\nedit src/b.txt 2 LINTFAIL\n")
	if before != "none" {
		b.WriteString(before + "\n")
	}
	if gone == "config-rm" {
		b.WriteString("rm .gauntlet/config.yml\n")
	} else {
		b.WriteString("weaken delete\n")
	}
	if gone != "delete-uncommitted" {
		b.WriteString("commit\n")
	}
	fmt.Fprintf(&b, "hook s1 false\n%s\nedit src/a.txt 2 LINTFAIL\n%s\n", cmd, cmd)
	return b.String()
}
