package parse

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

func TestCheckViolations(t *testing.T) {
	raw := `[
		{"file":"a.go","line":3,"issue":"bad","fix":"good","priority":"High","status":"new"},
		{"file":"b.go","line":"7","issue":"str line","priority":"low"},
		{"file":"c.go","issue":"no line","priority":"low"},
		{"file":"d.go","line":"?","issue":"unknown line","priority":"low"},
		{"line":4,"issue":"no file","priority":"low"},
		{"file":"e.go","line":4,"priority":"low"},
		{"file":"f.go","line":4,"issue":"no priority"},
		{"file":"g.go","line":4.0,"issue":"odd priority","priority":"blocker","result":"note"},
		"not an object",
		{"file":"h.go","line":2.5,"issue":"fractional","priority":"medium"}
	]`
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &raws); err != nil {
		t.Fatal(err)
	}
	got := CheckViolations(raws)
	wantKept := []gate.Violation{
		{File: "a.go", Line: 3, Issue: "bad", Fix: "good", Priority: "high", Status: "new"},
		{File: "b.go", Line: 7, Issue: "str line", Priority: "low", Status: "new"},
		{File: "g.go", Line: 4, Issue: "odd priority", Priority: "low", Status: "new", Result: "note"},
	}
	if !reflect.DeepEqual(got.Kept, wantKept) {
		t.Errorf("kept = %+v\nwant %+v", got.Kept, wantKept)
	}
	wantDropped := map[int][]string{
		3: {"line"}, 4: {"line"}, 5: {"file"}, 6: {"issue"}, 7: {"priority"},
		9: {"file", "line", "issue", "priority"}, 10: {"line"},
	}
	gotDropped := map[int][]string{}
	for _, d := range got.Dropped {
		gotDropped[d.Index] = d.Missing
	}
	if !reflect.DeepEqual(gotDropped, wantDropped) {
		t.Errorf("dropped = %v, want %v", gotDropped, wantDropped)
	}
	if len(got.Notes) != 1 {
		t.Errorf("notes = %q, want one about the unknown priority", got.Notes)
	}
}

func TestRank(t *testing.T) {
	tests := []struct {
		p    string
		want int
	}{{"critical", 4}, {"HIGH", 3}, {"medium", 2}, {"low", 1}, {"", 1}, {"blocker", 1}}
	for _, tt := range tests {
		if got := Rank(tt.p); got != tt.want {
			t.Errorf("Rank(%q) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestLineText(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{{float64(12), "12"}, {12, "12"}, {"7", "7"}, {"?", "?"}, {nil, "?"}, {"NaN", "NaN"}}
	for _, tt := range tests {
		if got := LineText(tt.in); got != tt.want {
			t.Errorf("LineText(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
