package modelstub

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseToolUse(t *testing.T) {
	tests := []struct {
		reply    string
		ok       bool
		name, in string
	}{
		{reply: `tool_use Write {"file_path":"/x","content":"y"}`, ok: true, name: "Write", in: `{"file_path":"/x","content":"y"}`},
		{reply: `tool_use Read`, ok: true, name: "Read", in: `{}`},
		{reply: `tool_use Bash {not json`, ok: false},
		{reply: `tool_use `, ok: false},
		{reply: `{"status":"pass"}`, ok: false},
		{reply: `All done.`, ok: false},
	}
	for _, tt := range tests {
		tu, ok := parseToolUse(tt.reply)
		if ok != tt.ok || (ok && (tu.Name != tt.name || string(tu.Input) != tt.in || !strings.HasPrefix(tu.ID, "toolu_stub_"))) {
			t.Errorf("parseToolUse(%q) = %+v, %v", tt.reply, tu, ok)
		}
	}
	a, _ := parseToolUse("tool_use Read")
	b, _ := parseToolUse("tool_use Read")
	if a.ID == b.ID {
		t.Errorf("two tool calls share the id %q", a.ID)
	}
}

func TestAnthropicToolUse(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		contains []string // in order
	}{
		{
			name: "stream", body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			contains: []string{"event: message_start", `"name":"Write","type":"tool_use"`,
				`"partial_json":"{\"file_path\":\"/x\"}"`, `"stop_reason":"tool_use"`, "event: message_stop"},
		},
		{
			name: "message", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			contains: []string{`"input":{"file_path":"/x"},"name":"Write","type":"tool_use"`, `"stop_reason":"tool_use"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			h := Anthropic(NewRecorder(&log), NewReplies("", `tool_use Write {"file_path":"/x"}`, "after"))
			for i, want := range [][]string{tt.contains, {`"after"`}} {
				rr := httptest.NewRecorder()
				h.ServeHTTP(rr, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(tt.body)))
				body, _ := io.ReadAll(rr.Result().Body)
				rest := string(body)
				for _, s := range want {
					j := strings.Index(rest, s)
					if j < 0 {
						t.Fatalf("answer %d: %q not found (in order) in %s", i+1, s, body)
					}
					rest = rest[j+len(s):]
				}
			}
			if !strings.Contains(log.String(), `"reply":"tool_use Write`) {
				t.Errorf("log misses the tool call reply: %s", log.String())
			}
		})
	}
}
