package hookproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDecodeFixtures decodes every recorded or documented input: each must
// decode, be detected as the agent its file name starts with, and carry the
// project directory and loop signal it holds.
func TestDecodeFixtures(t *testing.T) {
	want := map[string]Input{
		"claude-stop-first.json":       {Agent: Claude, Event: "Stop", Dir: "/home/dev/project"},
		"claude-stop-after-block.json": {Agent: Claude, Event: "Stop", Dir: "/home/dev/project", Continuing: true},
		"codex-stop-first.json":        {Agent: Codex, Event: "Stop", Dir: "/home/dev/project"},
		"codex-stop-after-block.json":  {Agent: Codex, Event: "Stop", Dir: "/home/dev/project", Continuing: true},
		"gemini-afteragent-first.json": {Agent: Gemini, Event: "AfterAgent", Dir: "/home/dev/project"},
		"gemini-afteragent-after-deny.json": {Agent: Gemini, Event: "AfterAgent", Dir: "/home/dev/project",
			Continuing: true},
		"cursor-stop-first.json":          {Agent: Cursor, Event: "stop", Dir: "/home/dev/project", AgentStatus: "completed"},
		"cursor-stop-after-followup.json": {Agent: Cursor, Event: "stop", Dir: "/home/dev/project", AgentStatus: "completed", Continuing: true},
		"cursor-stop-aborted.json":        {Agent: Cursor, Event: "stop", Dir: "/home/dev/project", AgentStatus: "aborted"},
		"copilot-agentstop.json":          {Agent: Copilot, Dir: "/home/dev/project"},
		"copilot-agentstop-recorded.json": {Agent: Copilot, Dir: "/home/dev/project"},
		"copilot-stop-pascalcase.json":    {Agent: Copilot, Dir: "/home/dev/project", Event: "Stop"},
		"copilot-agentstop-after-block.json": {Agent: Copilot, Dir: "/home/dev/project",
			Continuing: true},
		"qwen-stop-first.json":        {Agent: Qwen, Event: "Stop", Dir: "/home/dev/project"},
		"qwen-stop-after-block.json":  {Agent: Qwen, Event: "Stop", Dir: "/home/dev/project", Continuing: true},
		"droid-stop-first.json":       {Agent: Droid, Event: "Stop", Dir: "/home/dev/project"},
		"droid-stop-after-block.json": {Agent: Droid, Event: "Stop", Dir: "/home/dev/project", Continuing: true},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("fixture %s has no expectation in this test", name)
			}
			// A client that sends Claude Code's shape is recognised by
			// its hooks' environment, the shape reads as Claude Code's.
			d, _ := Lookup(w.Agent)
			byShape := w.Agent
			if d.Env != "" {
				byShape = Claude
			}
			if got := Detect(data); got != byShape {
				t.Errorf("Detect = %q, want %q", got, byShape)
			}
			if d.Env != "" {
				env := map[string]string{d.Env: "/home/dev/project", "CLAUDE_PROJECT_DIR": "/home/dev/project"}
				if got := FromEnv(func(k string) string { return env[k] }); got != w.Agent {
					t.Errorf("FromEnv = %q, want %q", got, w.Agent)
				}
			}
			got, err := Decode(data, FromEnv(func(k string) string {
				if k == d.Env {
					return "x"
				}
				return ""
			}))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got.SessionID = "" // checked below
			if got != w {
				t.Errorf("Decode =\n %+v\nwant\n %+v", got, w)
			}
			full, _ := Decode(data, w.Agent)
			if full.SessionID == "" {
				t.Errorf("SessionID not decoded")
			}
			// An explicit agent is honoured whatever the shape.
			for _, a := range Agents {
				in, err := Decode(data, a)
				if err != nil || in.Agent != a {
					t.Errorf("Decode(%s) = %+v, %v", a, in, err)
				}
			}
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"", ErrEmpty},
		{" \n\t ", ErrEmpty},
		{"null", ErrNotObject},
		{"[]", ErrNotObject},
		{`"Stop"`, ErrNotObject},
		{"42", ErrNotObject},
		{"{", ErrNotObject},
		{`{"cwd":"/x"} {}`, ErrNotObject},
		{`{"cwd":"/x"}garbage`, ErrNotObject},
		{"\xff\xfe", ErrNotObject},
	} {
		if _, err := Decode([]byte(tc.in), ""); !errors.Is(err, tc.want) {
			t.Errorf("Decode(%q) error = %v, want %v", tc.in, err, tc.want)
		}
	}
}

// TestDecodeLenient pins that unknown fields and known fields of the wrong
// type never fail a decode.
func TestDecodeLenient(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Input
	}{
		{`{}`, Input{Agent: Claude}},
		{` {"cwd":"/p","stop_hook_active":true,"extra":{"deep":[1,2,3]}} `, Input{Agent: Claude, Dir: "/p", Continuing: true}},
		{`{"cwd":42,"stop_hook_active":"yes","hook_event_name":"Stop"}`, Input{Agent: Claude, Event: "Stop", Continuing: true}},
		{`{"cwd":"/p","stop_hook_active":"true"}`, Input{Agent: Claude, Dir: "/p", Continuing: true}},
		{`{"cwd":"/p","stop_hook_active":"false"}`, Input{Agent: Claude, Dir: "/p"}},
		{`{"cwd":"/p","stop_hook_active":1}`, Input{Agent: Claude, Dir: "/p", Continuing: true}},
		{`{"cwd":"/p","stop_hook_active":{"x":1}}`, Input{Agent: Claude, Dir: "/p"}},
		{`{"turn_id":"t","stop_hook_active":"1"}`, Input{Agent: Codex, Continuing: true}},
		{`{"hook_event_name":"AfterAgent","stop_hook_active":"TRUE"}`, Input{Agent: Gemini, Event: "AfterAgent", Continuing: true}},
		{`{"hookEventName":"agentStop","stop_hook_active":"true"}`, Input{Agent: Copilot, Event: "agentStop", Continuing: true}},
		{`{"workspace_roots":["/a"],"loop_count":"1"}`, Input{Agent: Cursor, Dir: "/a", Continuing: true}},
		{`{"workspace_roots":["/a"],"loop_count":true}`, Input{Agent: Cursor, Dir: "/a", Continuing: true}},
		{`{"workspace_roots":["/a"],"loop_count":"0"}`, Input{Agent: Cursor, Dir: "/a"}},
		{`{"workspace_roots":["/a"],"loop_count":-3}`, Input{Agent: Cursor, Dir: "/a"}},
		{`{"cwd":null,"stop_hook_active":null}`, Input{Agent: Claude}},
		{`{"turn_id":"t","cwd":"/p","stop_hook_active":true}`, Input{Agent: Codex, Dir: "/p", Continuing: true}},
		{`{"hook_event_name":"AfterAgent","cwd":"/p"}`, Input{Agent: Gemini, Event: "AfterAgent", Dir: "/p"}},
		{`{"workspace_roots":[],"loop_count":"2"}`, Input{Agent: Cursor, Continuing: true}},
		{`{"workspace_roots":["/a","/b"],"loop_count":3,"status":"error"}`, Input{Agent: Cursor, Dir: "/a", Continuing: true, AgentStatus: "error"}},
		{`{"hook_event_name":"stop"}`, Input{Agent: Cursor, Event: "stop"}},
		{`{"hookEventName":"agentStop","cwd":"/p"}`, Input{Agent: Copilot, Event: "agentStop", Dir: "/p"}},
		{`{"sessionId":"s","cwd":"/p","timestamp":"not a number"}`, Input{Agent: Copilot, SessionID: "s", Dir: "/p"}},
	} {
		got, err := Decode([]byte(tc.in), "")
		if err != nil {
			t.Errorf("Decode(%s): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Decode(%s) =\n %+v\nwant\n %+v", tc.in, got, tc.want)
		}
	}
}

func TestCompleted(t *testing.T) {
	for status, want := range map[string]bool{"": true, "completed": true, "aborted": false, "error": false} {
		if got := (Input{AgentStatus: status}).Completed(); got != want {
			t.Errorf("Completed(%q) = %v, want %v", status, got, want)
		}
	}
}

func TestParseAgent(t *testing.T) {
	for _, a := range Agents {
		if got, err := ParseAgent(" " + strings.ToUpper(string(a)) + " "); err != nil || got != a {
			t.Errorf("ParseAgent(%s) = %q, %v", a, got, err)
		}
	}
	if got, err := ParseAgent(""); err != nil || got != "" {
		t.Errorf(`ParseAgent("") = %q, %v`, got, err)
	}
	if _, err := ParseAgent("vim"); err == nil || !strings.Contains(err.Error(), "claude, codex") {
		t.Errorf("ParseAgent(vim) error = %v", err)
	}
}

// responses covers block, a routine allow and an allow that needs attention.
var responses = map[string]Response{
	"block": {Block: true, Status: "failed", Message: "✗ failed <&>", Instructions: "GAUNTLET FAILED\nfix \"it\"\n\tnow"},
	"allow": {Status: "passed", Message: "✓ passed", Routine: true},
	"warn":  {Status: "retry_limit_exceeded", Message: "⚠ retry limit exceeded"},
}

// wantEncoded is the exact line per dialect and response kind.
var wantEncoded = map[Agent]map[string]string{
	Claude: {
		"block": `{"decision":"block","status":"failed","message":"✗ failed <&>","systemMessage":"✗ failed <&>","reason":"GAUNTLET FAILED\nfix \"it\"\n\tnow","stopReason":"GAUNTLET FAILED\nfix \"it\"\n\tnow"}`,
		"allow": `{"decision":"approve","status":"passed","message":"✓ passed","systemMessage":"✓ passed"}`,
		"warn":  `{"decision":"approve","status":"retry_limit_exceeded","message":"⚠ retry limit exceeded","systemMessage":"⚠ retry limit exceeded"}`,
	},
	Codex: {
		"block": `{"decision":"block","reason":"GAUNTLET FAILED\nfix \"it\"\n\tnow","systemMessage":"✗ failed <&>"}`,
		"allow": `{}`,
		"warn":  `{"systemMessage":"⚠ retry limit exceeded"}`,
	},
	Gemini: {
		"block": `{"decision":"deny","status":"failed","message":"✗ failed <&>","systemMessage":"✗ failed <&>","reason":"GAUNTLET FAILED\nfix \"it\"\n\tnow"}`,
		"allow": `{"decision":"approve","status":"passed","message":"✓ passed","systemMessage":"✓ passed"}`,
		"warn":  `{"decision":"approve","status":"retry_limit_exceeded","message":"⚠ retry limit exceeded","systemMessage":"⚠ retry limit exceeded"}`,
	},
	Cursor: {
		"block": `{"followup_message":"GAUNTLET FAILED\nfix \"it\"\n\tnow"}`,
		"allow": `{}`,
		"warn":  `{}`,
	},
	Copilot: {
		"block": `{"decision":"block","reason":"GAUNTLET FAILED\nfix \"it\"\n\tnow"}`,
		"allow": `{}`,
		"warn":  `{}`,
	},
}

func init() {
	// Qwen Code and Factory Droid read Claude Code's answers: Qwen Code
	// takes stopReason (else reason), Factory Droid reason.
	wantEncoded[Qwen] = wantEncoded[Claude]
	wantEncoded[Droid] = wantEncoded[Claude]
}

func TestEncode(t *testing.T) {
	for _, a := range Agents {
		for kind, r := range responses {
			t.Run(fmt.Sprintf("%s/%s", a, kind), func(t *testing.T) {
				got := Encode(a, r)
				assertOneLine(t, got)
				if want := wantEncoded[a][kind] + "\n"; string(got) != want {
					t.Errorf("Encode =\n %s\nwant\n %s", got, want)
				}
			})
		}
	}
	// Unknown dialects fall back to Claude Code's.
	if got, want := string(Encode("", responses["allow"])), wantEncoded[Claude]["allow"]+"\n"; got != want {
		t.Errorf("Encode(\"\") = %s, want %s", got, want)
	}
}

// TestEncodeBlockNeverWithoutReason pins that a block always carries a reason.
func TestEncodeBlockNeverWithoutReason(t *testing.T) {
	for _, a := range Agents {
		for _, r := range []Response{{Block: true, Status: "failed"}, {Block: true, Message: "m"}} {
			var m map[string]any
			if err := json.Unmarshal(Encode(a, r), &m); err != nil {
				t.Fatal(err)
			}
			reason, _ := m["reason"].(string)
			if a == Cursor {
				reason, _ = m["followup_message"].(string)
			}
			if reason == "" {
				t.Errorf("%s: block without reason: %v", a, m)
			}
		}
	}
}

// codexStopOutputSchema is Codex's published stop.command.output schema
// (codex-rs/hooks/schema/generated/stop.command.output.schema.json):
// additionalProperties false; decision only "block"; the rest typed below.
var codexStopOutputSchema = map[string]string{
	"continue":       "boolean",
	"decision":       "block",
	"reason":         "string",
	"stopReason":     "string",
	"suppressOutput": "boolean",
	"systemMessage":  "string",
}

// validateCodex checks one answer against codexStopOutputSchema, plus the
// rule Codex enforces while parsing: a block needs a reason.
func validateCodex(line []byte) error {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	for k, v := range m {
		typ, ok := codexStopOutputSchema[k]
		if !ok {
			return fmt.Errorf("additional property %q not allowed", k)
		}
		switch typ {
		case "boolean":
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("%s must be a boolean", k)
			}
		case "string":
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s must be a string", k)
			}
		case "block":
			if v != "block" {
				return fmt.Errorf("decision must be \"block\", got %v", v)
			}
		}
	}
	if m["decision"] == "block" {
		if r, _ := m["reason"].(string); r == "" {
			return errors.New("decision block without reason")
		}
	}
	return nil
}

func TestCodexSchema(t *testing.T) {
	for kind, r := range responses {
		if err := validateCodex(Encode(Codex, r)); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	// The validator itself rejects what Codex rejected in the recording.
	for _, bad := range []string{
		`{"decision":"approve"}`,
		`{"decision":"block","reason":"r","status":"failed"}`,
		`{"decision":"block"}`,
		`{"systemMessage":1}`,
	} {
		if validateCodex([]byte(bad)) == nil {
			t.Errorf("validator accepted %s", bad)
		}
	}
}

func assertOneLine(t *testing.T, line []byte) {
	t.Helper()
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("not exactly one line: %q", line)
	}
	if !json.Valid(line) {
		t.Fatalf("not valid JSON: %s", line)
	}
}

// FuzzDecode feeds any bytes to the decoder and, for every dialect, encodes
// the decision a gauntlet could take: decoding never panics, only ErrEmpty
// or ErrNotObject reject an input, and every answer is exactly one line of
// valid JSON (Codex's also valid against its schema).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "{}", "null", "[", `{"stop_hook_active":true}`, `{"loop_count":1e309}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agents := append([]Agent{""}, Agents...)
		for _, a := range agents {
			in, err := Decode(data, a)
			if err != nil {
				if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrNotObject) {
					t.Fatalf("Decode(%q, %q): unexpected error %v", data, a, err)
				}
				continue
			}
			if !slices.Contains(Agents, in.Agent) {
				t.Fatalf("Decode(%q, %q): agent %q", data, a, in.Agent)
			}
			for _, block := range []bool{false, true} {
				r := Response{Block: block, Status: in.Event, Message: in.Dir, Instructions: in.SessionID}
				line := Encode(in.Agent, r)
				assertOneLine(t, line)
				if in.Agent == Codex {
					if err := validateCodex(line); err != nil {
						t.Fatalf("codex answer %s: %v", line, err)
					}
				}
			}
		}
	})
}

// TestAllowTells: the clients whose allow carries no message are Cursor
// and Copilot CLI.
func TestAllowTells(t *testing.T) {
	for _, a := range Agents {
		want := a != Cursor && a != Copilot
		if got := AllowTells(a); got != want {
			t.Errorf("AllowTells(%s) = %t, want %t", a, got, want)
		}
	}
}
