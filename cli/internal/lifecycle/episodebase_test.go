//go:build unix

package lifecycle

import (
	"fmt"
	"strings"
	"testing"
)

// TestAdoptedStartAnchorsNothing generates the class of a configuration
// adopted from HEAD (no person's record) meeting commits no stop judged.
// Invariant: an adoption of HEAD's configuration never anchors the
// commits it finds; a stop with no point of its branch seen to pass and
// no start point a person recorded, whose base branch holds HEAD, judges
// the commits up to HEAD or its approve names them as not verified. The
// table crosses: a first stop before any commit or none; the trust
// adopted at a stop that runs the gates, adopted at one that does not
// (a lock in place), or recorded by a person before any commit; the
// agent on a branch made at the base's commit or on the base itself.
// Each sequence
// commits a failing test on main, so an approve that neither judges nor
// names it breaks b:unverified-episode-base.
func TestAdoptedStartAnchorsNothing(t *testing.T) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	known := signaturesIn(pendingDir)
	for _, first := range []string{"first-stop-before-commit", "no-early-stop"} {
		for _, adopt := range []string{"adopt-running", "adopt-locked", "person"} {
			for _, branch := range []string{"branch-at-main", "stay-on-main"} {
				name := strings.Join([]string{first, adopt, branch}, "/")
				text := adoptionSequence(first, adopt, branch)
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

// adoptionSequence is the replay of one member of the class
// TestAdoptedStartAnchorsNothing generates.
func adoptionSequence(first, adopt, branch string) string {
	var b strings.Builder
	trusted := ""
	if adopt == "person" {
		trusted = " trusted"
	}
	fmt.Fprintf(&b, "config max_retries=3 interval=0 baseline=false%s nocommits\n", trusted)
	if first == "first-stop-before-commit" {
		b.WriteString("edit src/b.txt 2 plain\nhook s1 false\n")
	}
	b.WriteString("edit ut/b_test.go 2 UTFAIL-3\ncommit\n")
	if branch == "branch-at-main" {
		b.WriteString("branch b0\n")
	}
	if adopt == "adopt-locked" {
		b.WriteString("lock empty\nhook s1 false\nunlock\n")
	}
	b.WriteString("edit src/b.txt 4 plain\nhook s1 false\nedit src/b.txt 3 plain\nhook s1 false\n")
	return b.String()
}
