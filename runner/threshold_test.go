package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// smellReviewer is a stand-in claude: it reads the diff of its question
// and flags every added line holding SMELL:<priority> with that priority,
// at the line the diff gives it, worded with that line's number (as a
// reviewer words a problem anew at every review).
const smellReviewer = `#!/bin/sh
awk '
/^\+\+\+ / { f = substr($0, 5); sub(/^b\//, "", f); next }
/^@@ / { split($3, a, ","); n = substr(a[1], 2) + 0; next }
f == "" { next }
/^\+/ {
	if (match($0, /SMELL:[a-z]+/)) {
		p = substr($0, RSTART + 6, RLENGTH - 6)
		v = v sep "{\"file\":\"" f "\",\"line\":" n ",\"issue\":\"The SMELL marker on line" n " must go\",\"fix\":\"Remove it\",\"priority\":\"" p "\",\"status\":\"new\"}"
		sep = ","
	}
	n++; next
}
/^-/ { next }
/^ / { n++ }
END {
	if (v == "") print "{\"status\":\"pass\",\"violations\":[]}"
	else print "{\"status\":\"fail\",\"violations\":[" v "]}"
}'
`

// smellProject is a committed project whose entry point src is gated by
// one review (smellReviewer, cached by default), on branch work, with
// src/a.txt of 40 lines committed and the flagged line added as its
// third.
func smellProject(t *testing.T, priority string) string {
	t.Helper()
	testenv.Setenv(t)
	root, bin := t.TempDir(), t.TempDir()
	write(t, filepath.Join(bin, "claude"), smellReviewer)
	if err := os.Chmod(filepath.Join(bin, "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	write(t, filepath.Join(root, ".gauntlet/config.yml"), "base_branch: main\nmax_retries: 5\ncli:\n  default_preference: [claude]\n"+
		"entry_points:\n  - path: src\n    reviews: [quality]\n")
	write(t, filepath.Join(root, ".gauntlet/reviews/quality.md"), "---\nnum_reviews: 1\n---\nFlag every SMELL.\n")
	write(t, filepath.Join(root, ".gitignore"), "gauntlet_logs/\n")
	write(t, filepath.Join(root, "src/a.txt"), strings.Join(plainLines(40), ""))
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "base")
	gitIn(t, root, "checkout", "-q", "-b", "work")
	lines := plainLines(40)
	write(t, filepath.Join(root, "src/a.txt"), strings.Join(insertLine(lines, 2, smellLine(priority)), ""))
	return root
}

// plainLines are n distinct unflagged lines.
func plainLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("plain line %d\n", i+1)
	}
	return out
}

// insertLine is lines with line inserted at index i (0-based).
func insertLine(lines []string, i int, line string) []string {
	out := append([]string{}, lines[:i]...)
	out = append(out, line)
	return append(out, lines[i:]...)
}

// smellLine is the flagged line, rated priority by smellReviewer.
func smellLine(priority string) string { return "x SMELL:" + priority + "\n" }

// smellMoves are what the agent does to the flagged line (src/a.txt's
// third line) after the first stop blocked on it: move it unchanged
// (down, to another file, with its file renamed), or really remove it.
var smellMoves = []struct {
	name string
	// fixed is true when the line is gone from the tree.
	fixed bool
	move  func(t *testing.T, root, line string)
}{
	{"down 1 line", false, moveDown(1)},
	{"down 4 lines", false, moveDown(4)},
	{"down 20 lines", false, moveDown(20)},
	{"to another file", false, func(t *testing.T, root, line string) {
		write(t, filepath.Join(root, "src/a.txt"), strings.Join(plainLines(40), ""))
		write(t, filepath.Join(root, "src/b.txt"), "other\n"+line)
	}},
	{"with its file renamed", false, func(t *testing.T, root, line string) {
		data, err := os.ReadFile(filepath.Join(root, "src/a.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(root, "src/a.txt")); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, "src/c.txt"), string(data))
	}},
	{"removed (a real fix)", true, func(t *testing.T, root, _ string) {
		write(t, filepath.Join(root, "src/a.txt"), strings.Join(plainLines(40), ""))
	}},
}

// moveDown moves the flagged line n lines down src/a.txt.
func moveDown(n int) func(t *testing.T, root, line string) {
	return func(t *testing.T, root, line string) {
		write(t, filepath.Join(root, "src/a.txt"), strings.Join(insertLine(plainLines(40), 2+n, line), ""))
	}
}

// markFixed marks every violation of the newest review JSON fixed, as
// update-review fix does.
func markFixed(t *testing.T, root string) {
	t.Helper()
	p, doc := newestReview(t, root)
	for _, v := range entries(doc) {
		v["status"], v["result"] = "fixed", "done"
	}
	writeDoc(t, p, doc)
}

// TestRerunThresholdNeverLaunders pins what the rerun threshold may do.
// The class: a verification run filters the new violations below
// rerun_new_issue_threshold; the invariants over it:
//
//  1. a violation moved unchanged (the same line text, on another line or
//     in another file) is the violation reported before, not a new one:
//     the threshold never filters it, and the run fails;
//  2. a finding the threshold filtered is never silent: the result's
//     Unverified names how many were filtered, in which review, and the
//     log that lists them;
//  3. a pass that depended on the threshold filter is never a plain pass
//     in the result cache: a later first run (a new session's stop, on
//     the same tree) judges the tree as any first run does, and blocks.
//
// The table: every move of the flagged line (smellMoves) × the priority
// the reviewer gives it (below, at and above the default threshold high)
// × the agent marking it fixed or not × a new medium finding added in the
// same turn or not (pairwise: see turns). The first stop always blocks (a first run keeps every
// finding); the control of the new session's stop is a first run of the
// same tree after the logs are cleaned.
func TestRerunThresholdNeverLaunders(t *testing.T) {
	ctx := context.Background()
	stop := func(root, session string) RunResult {
		return ExecuteRun(ctx, Options{Dir: root, Silent: true, Agent: true, SessionID: session, Command: "stop-hook", Version: "v1"})
	}
	// Each move and priority meets two of the four turns (marked × a new
	// finding added), the other two at the neighbouring priority and
	// move: every pair of the three dimensions is met in half the product.
	turns := [2][2][2]bool{{{false, false}, {true, true}}, {{false, true}, {true, false}}}
	for m, move := range smellMoves {
		for pr, priority := range []string{"low", "medium", "high"} {
			for _, c := range turns[(m+pr)%2] {
				mark, added := c[0], c[1]
				name := fmt.Sprintf("%s/%s/marked=%v/new medium=%v", move.name, priority, mark, added)
				t.Run(name, func(t *testing.T) {
					root := smellProject(t, priority)
					if first := stop(root, "s1"); first.Status != StatusFailed {
						t.Fatalf("first stop: %s (%s)", first.Status, first.Message)
					}
					move.move(t, root, smellLine(priority))
					if mark {
						markFixed(t, root)
					}
					if added {
						write(t, filepath.Join(root, "src/feature.txt"), "y SMELL:medium\n")
					}
					second := stop(root, "s1")
					filtered := strings.Contains(second.Unverified, "below rerun_new_issue_threshold")
					switch {
					case !move.fixed && second.Status != StatusFailed:
						t.Fatalf("verification run after the line moved: %s (%s; not verified: %q), want failed",
							second.Status, second.Message, second.Unverified)
					case move.fixed && !added && (second.Status != StatusPassed || filtered):
						t.Fatalf("verification run after a real fix: %s (%s; not verified: %q), want a plain pass",
							second.Status, second.Message, second.Unverified)
					case move.fixed && added && (passing(second.Status) == 0 || !filtered ||
						!strings.Contains(second.Unverified, "review:src:quality") || !strings.Contains(second.Unverified, ".log")):
						t.Fatalf("verification run with a new medium finding: %s (%s); not verified: %q, want a pass naming the filtered finding and its log",
							second.Status, second.Message, second.Unverified)
					}
					if filtered {
						listedIn(t, root, second.Unverified, "src/feature.txt:1")
					}
					// A new session's first stop on the same tree judges it
					// as a first run does.
					third := stop(root, "s2")
					wantBlock := !move.fixed || added
					if got := third.Status == StatusFailed; got != wantBlock {
						t.Fatalf("a new session's stop: %s (%s; not verified: %q), want blocked=%v",
							third.Status, third.Message, third.Unverified, wantBlock)
					}
				})
			}
		}
	}
}

// listedIn checks that the log the note names (after "listed in ") lists
// the finding at where as left out under the threshold.
func listedIn(t *testing.T, root, note, where string) {
	t.Helper()
	_, path, ok := strings.Cut(note, "listed in ")
	if !ok {
		t.Fatalf("the note names no log: %q", note)
	}
	path, _, _ = strings.Cut(path, ";")
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatalf("the log the note names: %v", err)
	}
	if !strings.Contains(string(data), "Below the rerun threshold, not verified: "+where+" (medium)") {
		t.Fatalf("%s does not list %s:\n%s", path, where, data)
	}
}

// TestRerunThresholdSurvivesSkippedSlots pins invariants 2 and 3 of
// TestRerunThresholdNeverLaunders across runs with num_reviews > 1, where
// a verification run skips the slots that passed before: a slot (claude,
// flagging SMELL) passes a verification run by leaving a medium finding
// out while the other (codex, flagging BAD) still fails; when the other
// passes later, with the first slot skipped, the pass still names the
// finding, the cache keeps no pass, and a new session's first stop
// blocks.
func TestRerunThresholdSurvivesSkippedSlots(t *testing.T) {
	ctx := context.Background()
	root := smellProject(t, "high")
	bin := filepath.Dir(lookPath(t, "claude"))
	write(t, filepath.Join(bin, "codex"), strings.ReplaceAll(smellReviewer, "SMELL:", "BAD:"))
	if err := os.Chmod(filepath.Join(bin, "codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, ".gauntlet/reviews/quality.md"), "---\nnum_reviews: 2\ncli_preference: [claude, codex]\n---\nFlag every SMELL.\n")
	write(t, filepath.Join(root, ".gauntlet/config.yml"), "base_branch: main\nmax_retries: 5\ncli:\n  default_preference: [claude, codex]\n"+
		"entry_points:\n  - path: src\n    reviews: [quality]\n")
	gitIn(t, root, "add", ".gauntlet")
	gitIn(t, root, "commit", "-q", "-m", "two slots")
	write(t, filepath.Join(root, "src/b.txt"), "x BAD:high\n")
	stop := func(session string) RunResult {
		return ExecuteRun(ctx, Options{Dir: root, Silent: true, Agent: true, SessionID: session, Command: "stop-hook", Version: "v1"})
	}
	if res := stop("s1"); res.Status != StatusFailed {
		t.Fatalf("first stop: %s (%s)", res.Status, res.Message)
	}
	// The SMELL fixed, a medium one added; the BAD line rewritten, still
	// bad: claude@1 passes by the threshold, codex@2 fails.
	write(t, filepath.Join(root, "src/a.txt"), strings.Join(plainLines(40), ""))
	write(t, filepath.Join(root, "src/feature.txt"), "y SMELL:medium\n")
	write(t, filepath.Join(root, "src/b.txt"), "z BAD:high\n")
	if res := stop("s1"); res.Status != StatusFailed {
		t.Fatalf("second stop: %s (%s)", res.Status, res.Message)
	}
	// The BAD fixed: codex@2 passes, claude@1 is skipped for its pass.
	write(t, filepath.Join(root, "src/b.txt"), "fine\n")
	res := stop("s1")
	if passing(res.Status) == 0 || !strings.Contains(res.Unverified, "(src/feature.txt:1)") {
		t.Fatalf("third stop: %s (%s); not verified: %q, want a pass naming src/feature.txt:1", res.Status, res.Message, res.Unverified)
	}
	if res := stop("s2"); res.Status != StatusFailed {
		t.Fatalf("a new session's stop: %s (%s; not verified: %q), want blocked", res.Status, res.Message, res.Unverified)
	}
}

// lookPath finds name on PATH.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
