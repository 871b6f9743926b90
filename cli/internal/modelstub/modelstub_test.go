package modelstub

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHandlers(t *testing.T) {
	tests := []struct {
		name     string
		api      string
		method   string
		path     string
		body     string
		code     int
		turn     bool
		contains []string // in the response body, in order
	}{
		{
			name: "anthropic stream", api: "anthropic", method: "POST", path: "/v1/messages",
			body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			code: 200, turn: true,
			contains: []string{"event: message_start", "event: content_block_start", `"text":"first","type":"text_delta"`,
				"event: content_block_stop", `"stop_reason":"end_turn"`, "event: message_stop"},
		},
		{
			name: "anthropic message", api: "anthropic", method: "POST", path: "/v1/messages",
			body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			code: 200, turn: true, contains: []string{`"text":"first"`, `"stop_reason":"end_turn"`},
		},
		{
			name: "anthropic count tokens", api: "anthropic", method: "POST", path: "/v1/messages/count_tokens",
			body: `{}`, code: 200, contains: []string{`"input_tokens":10`},
		},
		{
			name: "anthropic unknown", api: "anthropic", method: "GET", path: "/v1/else",
			code: 404, contains: []string{"not_found_error"},
		},
		{
			name: "openai stream", api: "openai", method: "POST", path: "/v1/responses",
			body: `{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`,
			code: 200, turn: true,
			contains: []string{"event: response.created", "event: response.output_item.added",
				`"delta":"first"`, "event: response.output_item.done", "event: response.completed"},
		},
		{
			name: "openai chat stream", api: "openai", method: "POST", path: "/v1/chat/completions",
			body: `{"model":"m","stream":true,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`,
			code: 200, turn: true,
			contains: []string{`data: {"choices":[{"delta":{"content":"","role":"assistant"}`, `"delta":{"content":"first"}`,
				`"finish_reason":"stop"`, `"usage":{"completion_tokens":2`, "data: [DONE]\n\n"},
		},
		{
			name: "openai chat", api: "openai", method: "POST", path: "/chat/completions",
			body: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
			code: 200, turn: true,
			contains: []string{`"message":{"content":"first","role":"assistant"}`, `"object":"chat.completion"`},
		},
		{
			name: "openai unknown", api: "openai", method: "POST", path: "/v1/completions",
			body: `{}`, code: 404, contains: []string{"not_found"},
		},
		{
			name: "gemini stream", api: "gemini", method: "POST", path: "/v1beta/models/g:streamGenerateContent?alt=sse",
			body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
			code: 200, turn: true, contains: []string{`data: {"candidates"`, `"text":"first"`, `"finishReason":"STOP"`},
		},
		{
			name: "gemini json call is not a turn", api: "gemini", method: "POST", path: "/v1beta/models/g:generateContent",
			body: `{"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"score":{"type":"INTEGER"}}}}}`,
			code: 200, contains: []string{`"text":"{\"score\":1}"`},
		},
		{
			name: "gemini count tokens", api: "gemini", method: "POST", path: "/v1beta/models/g:countTokens",
			body: `{}`, code: 200, contains: []string{`"totalTokens":10`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			h, err := Handler(tt.api, NewRecorder(&log), NewReplies("", "first"))
			if err != nil {
				t.Fatal(err)
			}
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
			if rr.Code != tt.code {
				t.Fatalf("status %d, want %d; body %s", rr.Code, tt.code, rr.Body)
			}
			body := rr.Body.String()
			for _, want := range tt.contains {
				i := strings.Index(body, want)
				if i < 0 {
					t.Fatalf("response lacks %q (in order):\n%s", want, rr.Body)
				}
				body = body[i+len(want):]
			}
			entries, err := ReadLog(&log)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].N != 1 || entries[0].API != tt.api || entries[0].Turn != tt.turn {
				t.Fatalf("recorded %+v, want one %s entry with turn=%v", entries, tt.api, tt.turn)
			}
		})
	}
}

func TestRepliesQueueThenDefault(t *testing.T) {
	q := NewReplies("", "a", "b")
	var got []string
	for range 4 {
		got = append(got, q.Next())
	}
	if want := []string{"a", "b", DefaultReply, DefaultReply}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Next() gave %q, want %q", got, want)
	}
}

func TestLastUserText(t *testing.T) {
	tests := []struct {
		api, body, want string
	}{
		{"anthropic", `{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"tool_result"},{"type":"text","text":"b"}]}]}`, "a\nb"},
		{"openai", `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a"}]},{"type":"message","role":"assistant","content":[]}]}`, "a"},
		{"openai", `{"input":"plain"}`, "plain"},
		{"openai", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"b"}]}]}`, "b"},
		{"gemini", `{"contents":[{"role":"user","parts":[{"text":"a"},{"text":"b"}]},{"role":"model","parts":[{"text":"x"}]}]}`, "a\nb"},
		{"gemini", `not json`, ""},
	}
	for _, tt := range tests {
		if got := LastUserText(tt.api, json.RawMessage(tt.body)); got != tt.want {
			t.Errorf("LastUserText(%s, %s) = %q, want %q", tt.api, tt.body, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	entries := []Entry{
		{N: 1, API: "anthropic", Method: "POST", Path: "/v1/messages", Turn: true, Reply: "ok",
			Body: json.RawMessage(`{"messages":[{"role":"user","content":"line1\nline2"}]}`)},
		{N: 2, API: "anthropic", Method: "POST", Path: "/v1/messages/count_tokens"},
	}
	var out bytes.Buffer
	if err := Summarize(entries, &out); err != nil {
		t.Fatal(err)
	}
	want := "turn 1 anthropic POST /v1/messages user=\"line1\\nline2\" reply=\"ok\"\ncall 2 anthropic POST /v1/messages/count_tokens\n"
	if out.String() != want {
		t.Fatalf("Summarize() =\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSynthJSON(t *testing.T) {
	tests := []struct {
		schema, want string
	}{
		{`{"type":"OBJECT","properties":{"r":{"type":"STRING"},"s":{"type":"INTEGER","minimum":5}}}`, `{"r":"stub","s":5}`},
		{`{"type":"object","properties":{"e":{"type":"string","enum":["x","y"]},"l":{"type":"array"},"b":{"type":"boolean"}}}`, `{"b":false,"e":"x","l":[]}`},
		{`{}`, `{}`},
	}
	for _, tt := range tests {
		var schema map[string]any
		if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
			t.Fatal(err)
		}
		if got := synthJSON(schema); got != tt.want {
			t.Errorf("synthJSON(%s) = %s, want %s", tt.schema, got, tt.want)
		}
	}
}

func TestServeLoopbackAddrFileAndLifetime(t *testing.T) {
	addrFile := filepath.Join(t.TempDir(), "addr")
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), ServeOptions{
			Handler:  Anthropic(NewRecorder(&log), NewReplies("")),
			AddrFile: addrFile,
			Lifetime: 2 * time.Second,
		})
	}()
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == ""; {
		if b, err := os.ReadFile(addrFile); err == nil {
			addr = strings.TrimSpace(string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("no address file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("listens on %s, want 127.0.0.1 only", addr)
	}
	resp, err := http.Post("http://"+addr+"/v1/messages", "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), DefaultReply) {
		t.Fatalf("answer %s lacks %q", b, DefaultReply)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve() = %v at the end of its lifetime, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve() outlived its lifetime")
	}
}
