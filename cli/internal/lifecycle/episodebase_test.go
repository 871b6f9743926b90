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

// TestTrustedStartJudgesEveryCommit generates the class of a person's
// trust recorded before the repository's first commit, or after it,
// meeting the commits the agent makes on the base branch and on a branch
// of it. Invariant: an episode's start point is always recorded when a
// person trusts, even before any commit (then git's empty tree); every
// commit made after it is judged or named as not verified, whichever
// branch holds it (the base, a branch ahead of it, a branch at it). The
// table crosses: the trust recorded before the first commit (and a stop
// there too, or not) or after a person's first commit; none, one or two
// commits of the agent on main; a branch made at main, or one with a
// commit of its own ahead of it; failing content committed on main, on
// the branch, or on both. Members
// with no commit where the failing content goes are left out, and so
// are those with no commit on main before the first one (the harness
// makes no branch of an unborn one). Each sequence stops twice, so an
// approve that neither judges nor names a failure committed on main
// breaks b:unverified-episode-base.
func TestTrustedStartJudgesEveryCommit(t *testing.T) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	known := signaturesIn(pendingDir)
	for _, when := range []string{"trust-before-first-commit", "trust-and-stop-before-first-commit", "trust-after-first-commit"} {
		for mainCommits := range 3 {
			for _, branch := range []string{"branch-at-main", "branch-ahead"} {
				for _, fail := range []string{"fail-on-main", "fail-on-branch", "fail-on-both"} {
					text, ok := trustedStartSequence(when, mainCommits, branch, fail)
					if !ok {
						continue
					}
					name := strings.Join([]string{when, fmt.Sprintf("main-%d", mainCommits), branch, fail}, "/")
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
}

// trustedStartSequence is the replay of one member of the class
// TestTrustedStartJudgesEveryCommit generates; false for a member that
// cannot be made.
func trustedStartSequence(when string, mainCommits int, branch, fail string) (string, bool) {
	onMain := fail != "fail-on-branch"
	onBranch := fail != "fail-on-main"
	switch {
	case onMain && mainCommits == 0, onBranch && branch == "branch-at-main":
		return "", false
	case when != "trust-after-first-commit" && mainCommits == 0:
		return "", false
	}
	var b strings.Builder
	switch when {
	case "trust-before-first-commit":
		b.WriteString("config max_retries=3 interval=0 baseline=false trusted nocommits\n")
	case "trust-and-stop-before-first-commit":
		b.WriteString("config max_retries=3 interval=0 baseline=false trusted nocommits\nedit src/b.txt 2 plain\nhook s1 false\n")
	default:
		b.WriteString("config max_retries=3 interval=0 baseline=false trusted\ncheckout main\n")
	}
	for i := 1; i <= mainCommits; i++ {
		if onMain && i == mainCommits {
			b.WriteString("edit ut/b_test.go 2 UTFAIL-3\n")
		} else {
			fmt.Fprintf(&b, "edit src/m%d.txt 2 plain\n", i)
		}
		b.WriteString("commit\n")
	}
	b.WriteString("branch b0\n")
	if branch == "branch-ahead" {
		if onBranch {
			b.WriteString("edit ut/c_test.go 2 UTFAIL-3\n")
		} else {
			b.WriteString("edit src/c.txt 2 plain\n")
		}
		b.WriteString("commit\n")
	}
	b.WriteString("hook s1 false\nedit src/b.txt 3 plain\nhook s1 false\n")
	return b.String(), true
}

// TestMovedBaseJudgesFromStart generates the class of the base branch
// moved onto the agent's committed work (by each way refMove knows)
// before any stop ran the gates, in a project a person trusted. Invariant:
// a block always names something the agent can fix, and the stop judges
// what the agent did: when the base holds HEAD and no point of the branch
// was seen to pass, the work since the start point of the person's record
// is the agent's (docs/trust.md, "Where the work starts"), so a check with
// baseline: true that fails on a commit made since, and passes at that
// point, is new and blocks, whatever the moved base holds. The table
// crosses: the trust recorded when the project was set up, by a person
// after the agent's first commit, or re-trusted (another configuration)
// after the failing commit before any stop (which keeps the start point);
// each way the agent moves main; no earlier run, or a run or stop hook
// ended by a signal in the middle of a gate before the failing commit.
// Each sequence ends with a stop whose block the checker must take as
// one that names a gate that fails.
func TestMovedBaseJudgesFromStart(t *testing.T) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	known := signaturesIn(pendingDir)
	for _, trust := range []string{"trusted-at-setup", "trusted-after-commit", "retrusted-before-stop"} {
		for _, how := range []string{"branch", "update-ref", "merge", "origin", "push"} {
			for _, before := range []string{"none", "signal TERM run", "signal KILL hook"} {
				name := strings.Join([]string{trust, how, strings.ReplaceAll(before, " ", "-")}, "/")
				text := movedBaseSequence(trust, how, before)
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

// movedBaseSequence is the replay of one member of the class
// TestMovedBaseJudgesFromStart generates.
func movedBaseSequence(trust, how, before string) string {
	var b strings.Builder
	trusted := " trusted"
	if trust == "trusted-after-commit" {
		trusted = ""
	}
	fmt.Fprintf(&b, "config max_retries=3 interval=0 baseline=true%s\n", trusted)
	if before != "none" {
		b.WriteString("edit src/b.txt 2 plain\n" + before + "\n")
	}
	b.WriteString("edit src/c.txt 2 plain\ncommit\n")
	if trust == "trusted-after-commit" {
		b.WriteString("trust\n")
	}
	b.WriteString("edit src/a.txt 2 LINTFAIL\ncommit\n")
	if trust == "retrusted-before-stop" {
		b.WriteString("weaken drop-review\ntrust\n")
	}
	fmt.Fprintf(&b, "refmove %s\nhook s1 false\n", how)
	return b.String()
}
