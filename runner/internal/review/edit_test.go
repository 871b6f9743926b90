package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// TestMark pins the edit of a review JSON: only the named new violations
// change, "result" follows "status", keys this tool does not know stay in
// place, text is not HTML-escaped, and a file with nothing to change is
// not written.
func TestMark(t *testing.T) {
	const before = `{
  "adapter": "claude",
  "custom": {"kept": [1, 2]},
  "status": "fail",
  "violations": [
    {"file": "a.go", "line": 3, "issue": "Bad <thing>", "priority": "high", "status": "new", "category": "x"},
    {"file": "b.go", "line": "?", "issue": "Other", "priority": "low"},
    {"file": "c.go", "line": 1, "issue": "Done", "priority": "low", "status": "skipped", "result": "no"}
  ]
}`
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := readSlotFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{ID(f.Violations[0]): true, ID(f.Violations[2]): true}
	n, err := Mark(path, ids, gate.ViolationFixed, "a < b & c")
	if err != nil || n != 1 {
		t.Fatalf("Mark = %d, %v", n, err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	for _, want := range []string{
		`  "custom": {` + "\n" + `    "kept": [`,
		`      "status": "fixed",` + "\n" + `      "result": "a < b & c",` + "\n" + `      "category": "x"`,
		`"issue": "Bad <thing>"`,
		`      "status": "skipped",` + "\n" + `      "result": "no"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, `"adapter"`) > strings.Index(got, `"custom"`) {
		t.Errorf("keys reordered:\n%s", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	// Nothing left to mark: the file is not rewritten.
	stat, _ := os.Stat(path)
	if n, err := Mark(path, ids, gate.ViolationSkipped, "x"); n != 0 || err != nil {
		t.Errorf("second Mark = %d, %v", n, err)
	}
	if again, _ := os.Stat(path); !again.ModTime().Equal(stat.ModTime()) {
		t.Errorf("file rewritten")
	}
	// The second violation (no status: new) has the id its fingerprint gives.
	if n, _ := Mark(path, map[string]bool{ID(gate.Violation{File: "b.go", Line: "?", Issue: "Other"}): true}, gate.ViolationSkipped, "ok"); n != 1 {
		t.Errorf("violation without status or id not marked")
	}
}
