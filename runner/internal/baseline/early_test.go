package baseline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// judgeIn runs cmd in work (and, for the base, in base) and judges its
// failure; ok is false when the work tree's run passed.
func judgeIn(t *testing.T, cmd, work, base string) (check.Judgement, string, bool) {
	t.Helper()
	log := logFile(t)
	job := checkJob(cmd, ".", nil, nil)
	ctx := context.Background()
	out, found := runIn(ctx, job, work, log)
	if !out.Status.Failed() {
		return check.Judgement{}, "", false
	}
	j := &Judge{Source: shellSource{base}, BaseBranch: "main", Diff: noDiff,
		Commit: func(context.Context) (string, error) { return "0123456789abcdef", nil }}
	jd := j.Failure(ctx, check.Failure{Job: job, Env: gate.Env{Root: work}, Dir: work, Outcome: out, Log: log, Findings: found})
	data, _ := os.ReadFile(log.Name())
	return jd, string(data), true
}

// writeTree writes files (name: content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestJudgeEarlyStopIsTold: a pre-existing verdict approves silently
// only with evidence that everything the check would run after its first
// failure ran in the work tree: its parts split and each run (a top-level
// `a && b`), or programs known to report all their failures in one run.
// A check that may stop early in any other way (an `exit` after `;` or
// `||`, a subshell or group holding `&&`, a loop with `exit`, a `set -e`
// script, `sh -c`) stops at the same pre-existing failure on both sides,
// and what it runs after that ran on neither: its pre-existing verdict
// names that part as not verified (gate.Baseline.Hidden), never a plain
// pass. The table is every such shape, and the split and complete forms,
// × the base failing or passing × nothing new, a new failure the first
// part finds, or one only the later part finds.
func TestJudgeEarlyStopIsTold(t *testing.T) {
	const a, b = "grep -rn BAD src", "grep -rn TODO src"
	script := fmt.Sprintf("set -e\nif %s; then echo lint; false; fi\nif %s; then echo todo; false; fi\n", a, b)
	shapes := []struct {
		name, cmd string
		told      bool // may stop early: a pre-existing verdict names it
	}{
		{"seq", a + " && exit 1; " + b + " && exit 1; true", true},
		{"orexit", "! " + a + " || exit 1; ! " + b, true},
		{"subshell", "( ! " + a + " && ! " + b + " )", true},
		{"group", "{ " + a + " && exit 1; " + b + " && exit 1; }", true},
		{"loop", "for p in BAD TODO; do grep -rn $p src && exit 1; done; true", true},
		{"script", "sh tools/ci.sh", true},
		{"shc", `sh -c "! ` + a + ` && ! ` + b + `"`, true},
		{"chain", "! " + a + " && ! " + b, false},
		{"one", "! grep -rnE 'BAD|TODO' src", false},
	}
	root := t.TempDir()
	for k, sh := range shapes {
		for _, baseFails := range []bool{true, false} {
			for _, change := range []string{"none", "early", "late"} {
				name := fmt.Sprintf("%s/base-fails=%v/new=%s", sh.name, baseFails, change)
				dir := filepath.Join(root, fmt.Sprint(k), fmt.Sprint(baseFails), change)
				work, base := filepath.Join(dir, "work"), filepath.Join(dir, "base")
				tree := map[string]string{"tools/ci.sh": script, "src/a.txt": "hello\n"}
				if baseFails {
					tree["src/old.txt"] = "BAD old\n"
				}
				writeTree(t, base, tree)
				tree["src/old.txt"] = "BAD old\n" // the work tree fails the first part
				switch change {
				case "early":
					tree["src/new.txt"] = "BAD new\n"
				case "late":
					tree["src/new.txt"] = "TODO new\n"
				}
				writeTree(t, work, tree)
				jd, log, failed := judgeIn(t, sh.cmd, work, base)
				if !failed {
					t.Fatalf("%s: the work tree's run passed", name)
				}
				pre := jd.Status == gate.StatusPreExisting
				hidden := ""
				if jd.Baseline != nil {
					hidden = jd.Baseline.Hidden
				}
				switch {
				case !baseFails || change == "early":
					if pre {
						t.Errorf("%s: pre-existing, but the failure is new: %s\n%s", name, jd.Message, log)
					}
				case change == "late" && pre && hidden == "":
					t.Errorf("%s: a silent pre-existing verdict, though a later part finds something new and never ran: %s\n%s", name, jd.Message, log)
				case change == "none" && !pre:
					t.Errorf("%s: not pre-existing, though nothing is new: %s\n%s", name, jd.Message, log)
				case change == "none" && sh.told && hidden == "":
					t.Errorf("%s: pre-existing without naming what ran on neither side: %s\n%s", name, jd.Message, log)
				case change == "none" && !sh.told && hidden != "":
					t.Errorf("%s: names %q as not verified, though every part ran: %s", name, hidden, jd.Message)
				case change == "late" && !sh.told && pre:
					t.Errorf("%s: pre-existing, though the later part fails only here: %s\n%s", name, jd.Message, log)
				}
				if hidden != "" && !strings.Contains(log, hidden) {
					t.Errorf("%s: the log does not say what was not verified (%q)", name, hidden)
				}
			}
		}
	}
}

// TestJudgeLongChainRunsToItsEnd: the number of parts of a chain is known
// from its command, and the reruns of what a failing part kept from
// running are bounded by it, never by less: a chain of n parts (n up to
// 8) whose base fails its first k parts, with the same failures in the
// work tree, is pre-existing, whatever k; with a new failure in its last
// part, it blocks.
func TestJudgeLongChainRunsToItsEnd(t *testing.T) {
	root := t.TempDir()
	for n := 2; n <= 8; n++ {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf("! grep -rn M%d src", i))
		}
		cmd := strings.Join(parts, " && ")
		for k := 1; k <= n; k++ {
			for _, lastNew := range []bool{false, true} {
				if lastNew && k == n {
					continue // the last part fails on the base already
				}
				name := fmt.Sprintf("n=%d/base-fails=%d/last-new=%v", n, k, lastNew)
				dir := filepath.Join(root, name)
				work, base := filepath.Join(dir, "work"), filepath.Join(dir, "base")
				var old strings.Builder
				for i := range k {
					fmt.Fprintf(&old, "M%d\n", i)
				}
				writeTree(t, base, map[string]string{"src/old.txt": old.String()})
				tree := map[string]string{"src/old.txt": old.String(), "src/new.txt": "fine\n"}
				if lastNew {
					tree["src/new.txt"] = fmt.Sprintf("M%d\n", n-1)
				}
				writeTree(t, work, tree)
				jd, log, failed := judgeIn(t, cmd, work, base)
				if !failed {
					t.Fatalf("%s: the work tree's run passed", name)
				}
				if pre := jd.Status == gate.StatusPreExisting; pre == lastNew {
					t.Errorf("%s: pre-existing = %v: %s\n%s", name, pre, jd.Message, log)
				}
				if jd.Baseline != nil && jd.Baseline.Hidden != "" {
					t.Errorf("%s: names %q as not verified, though every part ran", name, jd.Baseline.Hidden)
				}
			}
		}
	}
}
