package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// evalDiff adds lines 2-3 of src/a.go and line 1 of b.go.
const evalDiff = `diff --git a/src/a.go b/src/a.go
--- a/src/a.go
+++ b/src/a.go
@@ -1,2 +1,4 @@
 package a
+var x = 1
+var y = 2
 var z = 3
diff --git a/b.go b/b.go
new file mode 100644
--- /dev/null
+++ b/b.go
@@ -0,0 +1 @@
+package b
`

// viol renders one violation object for a reviewer answer.
func viol(file string, line any, issue, priority string) string {
	l := fmt.Sprint(line)
	if s, ok := line.(string); ok {
		l = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf(`{"file":%q,"line":%s,"issue":%q,"fix":"f","priority":%q,"status":"new"}`, file, l, issue, priority)
}

func failAnswer(vs ...string) string {
	return `{"status":"fail","violations":[` + strings.Join(vs, ",") + `]}`
}

func TestEvaluate(t *testing.T) {
	changed := parse.ParseDiff(evalDiff)
	prevFixed := gate.Violation{File: "src/a.go", Line: 2, Issue: "Bad x", Priority: "high", Status: "fixed", Result: "renamed"}
	prevOpen := gate.Violation{File: "other.go", Line: 40, Issue: "Old problem", Priority: "low", Status: "new"}
	skipped := gate.Violation{File: "src/a.go", Line: 3, Issue: "Style nit", Priority: "low", Status: "skipped", Result: "won't fix"}
	tests := []struct {
		name        string
		text        string
		previous    []gate.Violation
		skipped     []gate.Violation
		threshold   config.Priority
		wantStatus  gate.Status
		wantMessage string
		wantOpen    int
		wantStored  int
		wantFixed   int
		wantSkipped int
		wantNote    string
	}{
		{
			name: "pass", text: `{"status":"pass","message":"No problems found"}`,
			wantStatus: gate.StatusPass, wantMessage: "No problems found",
		},
		{
			name: "fail inside the added lines", text: failAnswer(viol("src/a.go", 2, "x", "high"), viol("./b.go", "1", "y", "low")),
			wantStatus: gate.StatusFail, wantMessage: "Found 2 violation(s)", wantOpen: 2, wantStored: 2,
		},
		{
			name:       "out-of-scope violations are filtered",
			text:       failAnswer(viol("src/a.go", 1, "context line", "high"), viol("src/a.go", 4, "context line", "high"), viol("c.go", 1, "not in diff", "high"), viol("b.go", 1, "ok", "high")),
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantNote: "Note: 3 out-of-scope violation(s) filtered",
		},
		{
			name:        "all out of scope passes",
			text:        failAnswer(viol("c.go", 1, "not in diff", "high")),
			wantStatus:  gate.StatusPass,
			wantMessage: "Passed (1 out-of-scope violation(s) filtered)",
		},
		{
			name:       "a file that is nowhere is no file out of scope: kept",
			text:       failAnswer(viol("src/made-up.go", 1, "invented", "high"), viol("c.go", 1, "not in diff", "high")),
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantNote: "Note: 1 out-of-scope violation(s) filtered",
		},
		{
			name:       "violations missing required fields are dropped",
			text:       `{"status":"fail","violations":[{"file":"b.go","issue":"no line","priority":"low"},` + viol("b.go", 1, "ok", "low") + `]}`,
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantNote: "Warning: dropped violation 1, missing or invalid line:",
		},
		{
			name:        "all dropped is an error",
			text:        `{"status":"fail","violations":[{"file":"b.go","line":1,"issue":"no priority"}]}`,
			wantStatus:  gate.StatusError,
			wantMessage: msgAllDropped,
		},
		{
			name: "fail without violations is an error", text: `{"status":"fail"}`,
			wantStatus: gate.StatusError, wantMessage: msgFailNoViolations,
		},
		{
			name: "no JSON", text: "Looks fine to me!",
			wantStatus: gate.StatusError, wantMessage: parse.ErrNoJSON.Error(),
		},
		{
			name: "invalid status", text: `{"status":"ok"}`,
			wantStatus: gate.StatusError, wantMessage: `invalid review JSON: missing or invalid "status" field (want "pass" or "fail"): got "ok"`,
		},
		{
			name:       "threshold drops new low issues in a rerun",
			text:       failAnswer(viol("b.go", 1, "new minor", "low"), viol("src/a.go", 3, "new major", "critical")),
			previous:   []gate.Violation{prevFixed},
			threshold:  config.PriorityHigh,
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantFixed: 1,
			wantNote: "Note: 1 new violation(s) below the rerun threshold (high) filtered",
		},
		{
			name:        "threshold can pass the slot",
			text:        failAnswer(viol("b.go", 1, "new minor", "medium")),
			previous:    []gate.Violation{prevFixed},
			threshold:   config.PriorityHigh,
			wantStatus:  gate.StatusPass,
			wantMessage: "Passed (1 new violation(s) below the rerun threshold (high) filtered)",
			wantFixed:   1,
		},
		{
			name:       "re-reported previous violations are exempt from scope and threshold",
			text:       failAnswer(viol("other.go", 40, "Old problem, still there", "low")),
			previous:   []gate.Violation{prevFixed, prevOpen},
			threshold:  config.PriorityHigh,
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantFixed: 1,
		},
		{
			name:       "unconfirmed fix stays open",
			text:       failAnswer(viol("src/a.go", 2, "Bad x", "high")),
			previous:   []gate.Violation{prevFixed},
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1,
		},
		{
			name:       "pass confirms every previous violation",
			text:       `{"status":"pass"}`,
			previous:   []gate.Violation{prevFixed, prevOpen},
			skipped:    []gate.Violation{skipped},
			wantStatus: gate.StatusPass, wantMessage: "Passed", wantFixed: 2, wantSkipped: 1,
		},
		{
			name:       "a re-reported skip keeps the skip",
			text:       failAnswer(viol("src/a.go", 3, "Style nit again", "low")),
			skipped:    []gate.Violation{skipped},
			wantStatus: gate.StatusPass, wantStored: 1, wantSkipped: 1,
		},
		{
			name:       "unknown priority is kept as low",
			text:       failAnswer(viol("b.go", 1, "x", "blocker")),
			wantStatus: gate.StatusFail, wantOpen: 1, wantStored: 1, wantNote: `Note: violation 1: unknown priority "blocker" kept as "low"`,
		},
	}
	root := t.TempDir() // c.go is a file of the project the diff leaves alone
	if err := os.WriteFile(filepath.Join(root, "c.go"), []byte("package c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := evaluate(evalInput{text: tt.text, changed: changed, root: root, previous: tt.previous, skippedBefore: tt.skipped, threshold: tt.threshold})
			if ev.status != tt.wantStatus {
				t.Fatalf("status = %q (%s), want %q", ev.status, ev.message, tt.wantStatus)
			}
			if tt.wantMessage != "" && ev.message != tt.wantMessage {
				t.Errorf("message = %q, want %q", ev.message, tt.wantMessage)
			}
			if len(ev.open) != tt.wantOpen || len(ev.stored) != tt.wantStored || len(ev.fixed) != tt.wantFixed || len(ev.skipped) != tt.wantSkipped {
				t.Errorf("open %d stored %d fixed %d skipped %d; want %d %d %d %d",
					len(ev.open), len(ev.stored), len(ev.fixed), len(ev.skipped), tt.wantOpen, tt.wantStored, tt.wantFixed, tt.wantSkipped)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(ev.notes, "\n"), tt.wantNote) {
				t.Errorf("notes %q lack %q", ev.notes, tt.wantNote)
			}
		})
	}
}

func TestEvaluateCanonicalFile(t *testing.T) {
	ev := evaluate(evalInput{text: failAnswer(viol("/repo/src/a.go", 2, "x", "high")), changed: parse.ParseDiff(evalDiff), root: "/repo"})
	if len(ev.stored) != 1 || ev.stored[0].File != "src/a.go" {
		t.Fatalf("stored = %+v", ev.stored)
	}
}

func TestBuildPrompt(t *testing.T) {
	body := "# Code quality\nLook for bugs.\n"
	first := BuildPrompt(body, nil)
	if !strings.HasPrefix(first, "# Code quality\nLook for bugs.\n\n## How to answer") {
		t.Errorf("first prompt starts %q", first[:60])
	}
	if strings.Contains(first, RerunHeading) {
		t.Error("first prompt has a rerun section")
	}
	for _, want := range []string{`"status": "fail"`, `"status": "pass"`, `"priority"`, "read-only", ".git/", `"+" line`} {
		if !strings.Contains(first, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	rerun := BuildPrompt(body, []gate.Violation{
		{File: "src/a.go", Line: 10, Issue: "Unchecked\nerror", Fix: "Check it", Priority: "high", Status: "fixed", Result: "Added a guard"},
		{File: "src/c.go", Line: "?", Issue: "Leak", Priority: "medium", Status: "new"},
	})
	verify := strings.Index(rerun, VerifyHeading)
	open := strings.Index(rerun, OpenHeading)
	if answer := strings.Index(rerun, "## How to answer"); !(strings.Index(rerun, RerunHeading) < verify && verify < open && open < answer) {
		t.Fatalf("sections out of order:\n%s", rerun)
	}
	fixedPart, openPart := rerun[verify:open], rerun[open:strings.Index(rerun, "Rules for this verification")]
	for _, want := range []string{"1. src/a.go:10 - Unchecked error [high]", "Suggested fix: Check it", "Author's note: Added a guard"} {
		if !strings.Contains(fixedPart, want) {
			t.Errorf("verify section lacks %q:\n%s", want, fixedPart)
		}
	}
	if !strings.Contains(openPart, "1. src/c.go:? - Leak [medium]") || strings.Contains(openPart, "src/a.go") {
		t.Errorf("open section wrong:\n%s", openPart)
	}
	if !strings.Contains(rerun, "\nFiles touched by the fixes: src/a.go\n") {
		t.Error("rerun rules lack the touched files")
	}
	if got := Stdin("P\n", "D"); got != "P\n\n--- DIFF ---\nD" {
		t.Errorf("Stdin = %q", got)
	}
}
