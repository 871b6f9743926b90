package console

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

func TestConsoleBuffersUntilOpenAndStripsANSI(t *testing.T) {
	var term bytes.Buffer
	c := New(&term)
	c.Printf("before \x1b[31mred\x1b[0m")
	p := filepath.Join(t.TempDir(), "console.1.log")
	if err := c.Open(p, filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	c.Start("check:.:lint")
	c.Result(gate.Result{JobID: "check:.:lint", Status: gate.StatusFail, Message: "Exited with code 1", Duration: 1500 * time.Millisecond, LogPath: "/l/check_._lint.1.log"})
	c.Result(gate.Result{JobID: "check:.:ok", Status: gate.StatusPass, Duration: 10 * time.Millisecond})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	want := "before red\n[START] check:.:lint\n[FAIL]  check:.:lint (1.50s) - Exited with code 1\n      Log: /l/check_._lint.1.log\n[PASS]  check:.:ok (0.01s)\n"
	if string(data) != want {
		t.Fatalf("log:\n%q\nwant\n%q", data, want)
	}
	if !strings.Contains(term.String(), "\x1b[31mred") {
		t.Fatalf("terminal lost its colors: %q", term.String())
	}
	if err := New(nil).Open(p, filepath.Dir(p)); err == nil {
		t.Fatal("Open over an existing log succeeded")
	}
}

func TestReviewSlots(t *testing.T) {
	var term bytes.Buffer
	c := New(&term)
	c.Result(gate.Result{JobID: "review:.:q", Status: gate.StatusFail, Duration: time.Second, Slots: []gate.Slot{
		{Adapter: "claude", Index: 1, Status: gate.StatusPass, Message: "Passed"},
		{Adapter: "codex", Index: 2, Status: gate.StatusFail, Message: "Found 2 violations", JSONPath: "/l/r.json"},
	}})
	want := "[PASS]  review:.:q (claude@1) (1.00s) - Passed\n[FAIL]  review:.:q (codex@2) (1.00s) - Found 2 violations\n      Review: /l/r.json\n"
	if term.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", term.String(), want)
	}
}

func TestSummarize(t *testing.T) {
	fixed := []gate.Violation{{File: "a.go", Line: 3, Issue: "bug"}}
	skipped := []gate.Violation{{File: "b.go", Line: "?", Issue: "style", Result: "subjective"}}
	tests := []struct {
		name    string
		results []gate.Result
		prev    *gate.Pending
		want    Summary
	}{
		{"all pass", []gate.Result{{JobID: "check:.:a", Status: gate.StatusPass}}, nil, Summary{}},
		{"fail and error", []gate.Result{
			{JobID: "check:.:a", Status: gate.StatusFail, ErrorCount: 1},
			{JobID: "review:.:q", Status: gate.StatusFail, ErrorCount: 3},
			{JobID: "check:.:b", Status: gate.StatusError},
		}, nil, Summary{Failed: 5, GatesFailed: 3}},
		{"check fixed since last run", []gate.Result{{JobID: "check:src:lint", Status: gate.StatusPass}}, &gate.Pending{Checks: map[string]bool{"check:src:lint": true}},
			Summary{Fixed: 1, Lines: []string{"  ✓ Fixed: check:src:lint - passes now"}}},
		{"review fixes and skips per slot", []gate.Result{{JobID: "review:.:q", Status: gate.StatusPass, Slots: []gate.Slot{{Adapter: "claude", Index: 1, Fixed: fixed, Skipped: skipped}}}}, nil,
			Summary{Fixed: 1, Skipped: 1, Lines: []string{"  ✓ Fixed: review:.:q (claude@1) - a.go:3 bug", "  ⊘ Skipped: review:.:q (claude@1) - b.go:? style", "    Reason: subjective"}}},
		{"gate-level lists", []gate.Result{{JobID: "review:.:q", Status: gate.StatusPass, Skipped: skipped}}, nil,
			Summary{Skipped: 1, Lines: []string{"  ⊘ Skipped: review:.:q - b.go:? style", "    Reason: subjective"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.results, tt.prev)
			if got.Fixed != tt.want.Fixed || got.Skipped != tt.want.Skipped || got.Failed != tt.want.Failed ||
				got.GatesFailed != tt.want.GatesFailed || strings.Join(got.Lines, "\n") != strings.Join(tt.want.Lines, "\n") {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestPrintSummary(t *testing.T) {
	var term bytes.Buffer
	New(&term).PrintSummary(Summary{Fixed: 1, Failed: 2, Lines: []string{"  ✓ Fixed: x"}}, 2, "Failed")
	out := term.String()
	for _, s := range []string{"\n" + Rule + "\nRESULTS SUMMARY\n" + Rule + "\n", "Iteration 2:\n  ✓ Fixed: x\n", "Total: 1 fixed, 0 skipped, 2 failed after 2 iterations\nStatus: Failed\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q:\n%s", s, out)
		}
	}
}

// A cached result's line names the console log of the run that proved it
// while that log can be read; once an archive removed it, the line says so
// instead of naming a file that is gone.
func TestCachedProofNamesAReadableLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "previous", "console.3.log")
	recorded := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := gate.Cached{At: recorded, Run: 3, Root: "/p", ConsoleLog: log}
	if got := CachedProof(c); strings.Contains(got, log) || !strings.Contains(got, "console.3.log, is gone") {
		t.Errorf("with the log gone: %q", got)
	}
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("[PASS]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a later run's log under the same name (written after the record)
	if err := os.Chtimes(log, recorded.Add(time.Second), recorded.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := CachedProof(c); strings.Contains(got, log) || !strings.Contains(got, "is gone") {
		t.Errorf("with a later run's log under its name: %q", got)
	}
	// the proving run's own log, last written before the record
	if err := os.Chtimes(log, recorded.Add(-time.Second), recorded.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := CachedProof(c); !strings.HasSuffix(got, " in /p ("+log+")") {
		t.Errorf("with the log there: %q", got)
	}
}
