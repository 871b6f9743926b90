package hookproto

import (
	"encoding/json"
	"testing"
)

// TestFlagCount pins the forms a loop field arrives in: every client's
// boolean and count, as JSON values or as strings, and booleans where a
// count is expected.
func TestFlagCount(t *testing.T) {
	for _, tc := range []struct {
		json  string
		flag  bool
		count int
	}{
		{`true`, true, 1},
		{`false`, false, 0},
		{`null`, false, 0},
		{`1`, true, 1},
		{`0`, false, 0},
		{`2`, true, 2},
		{`2.7`, true, 2},
		{`0.5`, false, 0},
		{`-1`, false, 0},
		{`1e309`, true, maxCount},
		{`"true"`, true, 1},
		{`" True "`, true, 1},
		{`"yes"`, true, 1},
		{`"on"`, true, 1},
		{`"false"`, false, 0},
		{`"no"`, false, 0},
		{`"1"`, true, 1},
		{`" 3 "`, true, 3},
		{`"0"`, false, 0},
		{`""`, false, 0},
		{`"maybe"`, false, 0},
		{`"NaN"`, false, 0},
		{`[1]`, false, 0},
		{`{"a":true}`, false, 0},
	} {
		var f Flag
		var c Count
		if err := json.Unmarshal([]byte(tc.json), &f); err != nil || bool(f) != tc.flag {
			t.Errorf("Flag(%s) = %v, %v; want %v", tc.json, f, err, tc.flag)
		}
		if err := json.Unmarshal([]byte(tc.json), &c); err != nil || int(c) != tc.count {
			t.Errorf("Count(%s) = %v, %v; want %v", tc.json, c, err, tc.count)
		}
	}
}

// FuzzLoopFields decodes any JSON value as every dialect's loop field:
// decoding never fails, a count is never negative, and the loop signal of
// each dialect agrees with the Flag or Count it is read as, whichever
// string or number form the value takes.
func FuzzLoopFields(f *testing.F) {
	for _, s := range []string{`true`, `"true"`, `1`, `"1"`, `"0"`, `false`, `null`, `1e309`, `"-5"`, `"\u0000"`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if !json.Valid([]byte(value)) {
			return
		}
		var fl Flag
		var c Count
		if err := json.Unmarshal([]byte(value), &fl); err != nil {
			t.Fatalf("Flag(%q): %v", value, err)
		}
		if err := json.Unmarshal([]byte(value), &c); err != nil {
			t.Fatalf("Count(%q): %v", value, err)
		}
		if c < 0 {
			t.Fatalf("Count(%q) = %d", value, c)
		}
		for agent, input := range map[Agent]string{
			Claude:  `{"hook_event_name":"Stop","stop_hook_active":` + value + `}`,
			Codex:   `{"turn_id":"t","stop_hook_active":` + value + `}`,
			Gemini:  `{"hook_event_name":"AfterAgent","stop_hook_active":` + value + `}`,
			Copilot: `{"hookEventName":"agentStop","stop_hook_active":` + value + `}`,
			Cursor:  `{"workspace_roots":["/w"],"loop_count":` + value + `}`,
			Qwen:    `{"hook_event_name":"Stop","prompt_id":"p","stop_hook_active":` + value + `}`,
			Droid:   `{"hook_event_name":"Stop","message_id":"m","stop_hook_active":` + value + `}`,
		} {
			in, err := Decode([]byte(input), agent)
			if err != nil {
				t.Fatalf("Decode(%s): %v", input, err)
			}
			want := c > 0
			if bool(fl) != want {
				t.Fatalf("Flag(%q) = %v but Count = %d", value, fl, c)
			}
			if in.Continuing != want {
				t.Fatalf("Decode(%s).Continuing = %v, want %v", input, in.Continuing, want)
			}
		}
	})
}
