package modelstub

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestResolveMatch(t *testing.T) {
	users := []string{"Stop hook feedback:\n- id `abc2345`, a.go:1", "earlier: id `zzzzzzz`"}
	for _, tc := range []struct{ reply, want string }{
		{"All done.", "All done."},
		{"with-match id `([a-z2-7]{7})`\ntool_use Bash {\"command\":\"x skip {{match}} 'y'\"}", "tool_use Bash {\"command\":\"x skip abc2345 'y'\"}"},
		{"with-match earlier: id `[a-z]+`\nsaw {{match}} and {{match}}", "saw earlier: id `zzzzzzz` and earlier: id `zzzzzzz`"},
		{"with-match nothing(here)\nx", "modelstub: with-match nothing(here): no user message of the request matches"},
		{"with-match (\nx", "modelstub: bad with-match pattern: error parsing regexp: missing closing ): `(`"},
	} {
		if got := resolveMatch(tc.reply, users); got != tc.want {
			t.Errorf("resolveMatch(%q) = %q, want %q", tc.reply, got, tc.want)
		}
	}
}

// TestAnthropicWithMatch drives the handler: the tool call it answers
// carries the id it read from the request's newest user message, and the
// log records the reply as answered.
func TestAnthropicWithMatch(t *testing.T) {
	var log bytes.Buffer
	h := Anthropic(NewRecorder(&log), NewReplies("", "with-match id `([a-z2-7]{7})`\ntool_use Bash {\"command\":\"skip {{match}}\"}"))
	body := `{"model":"m","messages":[{"role":"user","content":"first"},{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":[{"type":"text","text":"Stop hook feedback: id ` + "`k3x7a2f`" + `"}]}]}`
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body)))
	out, _ := io.ReadAll(rr.Result().Body)
	if !strings.Contains(string(out), `"input":{"command":"skip k3x7a2f"},"name":"Bash","type":"tool_use"`) {
		t.Errorf("answer: %s", out)
	}
	if !strings.Contains(log.String(), `"reply":"tool_use Bash {\"command\":\"skip k3x7a2f\"}"`) {
		t.Errorf("log: %s", log.String())
	}
}

func TestSummarizeSystemMessages(t *testing.T) {
	var b strings.Builder
	body := `{"messages":[{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"SessionStart hook additional context: x"}]}]}`
	if err := Summarize([]Entry{{N: 1, API: "anthropic", Method: "POST", Path: "/v1/messages", Turn: true, Reply: "ok", Body: []byte(body)}}, &b); err != nil {
		t.Fatal(err)
	}
	want := `turn 1 anthropic POST /v1/messages user="hi" reply="ok" system="SessionStart hook additional context: x"` + "\n"
	if b.String() != want {
		t.Errorf("Summarize = %q, want %q", b.String(), want)
	}
}
