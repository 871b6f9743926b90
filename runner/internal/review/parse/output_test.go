package parse

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		wantStatus string
		wantMethod Method
		wantErr    error
	}{
		{
			name:       "bare object",
			text:       `{"status":"pass","message":"ok"}`,
			wantStatus: "pass", wantMethod: MethodBalanced,
		},
		{
			name:       "fenced block wins over a later object",
			text:       "Here:\n```json\n{\"status\":\"fail\",\"violations\":[]}\n```\nand {\"status\":\"pass\"}",
			wantStatus: "fail", wantMethod: MethodFenced,
		},
		{
			name:       "fenced block without status is skipped",
			text:       "```json\n{\"a\":1}\n```\n{\"status\":\"pass\"}",
			wantStatus: "pass", wantMethod: MethodBalanced,
		},
		{
			name:       "upper-case fence tag",
			text:       "```JSON\n{\"status\":\"pass\"}\n```",
			wantStatus: "pass", wantMethod: MethodFenced,
		},
		{
			name:       "trailing text after the object",
			text:       "I reviewed it.\n{\"status\":\"pass\",\"message\":\"fine\"}\nLet me know if you need more.",
			wantStatus: "pass", wantMethod: MethodBalanced,
		},
		{
			name:       "trailing braces in prose do not hide the object",
			text:       `{"status":"fail","violations":[{"file":"a","line":1,"issue":"x","priority":"low","status":"new"}]} then use {braces} like this`,
			wantStatus: "fail", wantMethod: MethodBalanced,
		},
		{
			name:       "nested objects: the outer object wins over its violations",
			text:       `{"status":"fail","violations":[{"file":"a.go","line":3,"issue":"i","priority":"high","status":"new"}]}`,
			wantStatus: "fail", wantMethod: MethodBalanced,
		},
		{
			name:       "strings containing braces and quotes",
			text:       `noise { {"status":"fail","violations":[{"file":"a.go","line":3,"issue":"missing } in \"fmt {\"","priority":"high"}]}`,
			wantStatus: "fail", wantMethod: MethodBalanced,
		},
		{
			name:       "last object with a status wins",
			text:       `first {"status":"fail","violations":[]} then {"status":"pass"}`,
			wantStatus: "pass", wantMethod: MethodBalanced,
		},
		{
			name:    "unterminated object",
			text:    `{"status": "pass", "note": "unbalanced } inside"`,
			wantErr: ErrNoJSON,
		},
		{
			name:    "no JSON at all",
			text:    "I could not review this change.",
			wantErr: ErrNoJSON,
		},
		{
			name:    "broken JSON",
			text:    `{"status": "pass",}`,
			wantErr: ErrNoJSON,
		},
		{
			name:       "object without status is returned for Decode to judge",
			text:       `see {"result": "ok"} there`,
			wantStatus: "", wantMethod: MethodSpan,
		},
		{
			name:       "CRLF fenced block",
			text:       "```json\r\n{\"status\":\"pass\"}\r\n```\r\n",
			wantStatus: "pass", wantMethod: MethodFenced,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Extract(tt.text)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v (got %+v)", err, tt.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if got.Method != tt.wantMethod {
				t.Errorf("method = %q, want %q", got.Method, tt.wantMethod)
			}
			var status string
			_ = json.Unmarshal(got.Object["status"], &status)
			if status != tt.wantStatus {
				t.Errorf("status = %q, want %q", status, tt.wantStatus)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		json      string
		want      Review
		wantCount int
		wantErr   bool
	}{
		{name: "pass with message", json: `{"status":"pass","message":"All good"}`, want: Review{Status: "pass", Message: "All good"}},
		{name: "pass default message", json: `{"status":"PASS"}`, want: Review{Status: "pass", Message: DefaultPassMessage}},
		{name: "fail with violations", json: `{"status":"fail","violations":[{},{}]}`, want: Review{Status: "fail", Message: DefaultPassMessage, ViolationsArray: true}, wantCount: 2},
		{name: "fail without array", json: `{"status":"fail","violations":"many"}`, want: Review{Status: "fail", Message: DefaultPassMessage}},
		{name: "unknown status", json: `{"status":"maybe"}`, wantErr: true},
		{name: "missing status", json: `{"violations":[]}`, wantErr: true},
		{name: "non-string status", json: `{"status":true}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.json), &obj); err != nil {
				t.Fatal(err)
			}
			got, err := Decode(obj)
			if tt.wantErr {
				if !errors.Is(err, ErrStatus) {
					t.Fatalf("err = %v, want ErrStatus", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tt.want.Status || got.Message != tt.want.Message || got.ViolationsArray != tt.want.ViolationsArray || len(got.Violations) != tt.wantCount {
				t.Errorf("got %+v (%d violations), want %+v (%d)", got, len(got.Violations), tt.want, tt.wantCount)
			}
		})
	}
}

func TestExtractManyBraces(t *testing.T) {
	// Thousands of unmatched braces must not make extraction quadratic
	// beyond the candidate bound, and must still find nothing.
	text := strings.Repeat("{ ", 20000)
	if _, err := Extract(text); !errors.Is(err, ErrNoJSON) {
		t.Fatalf("err = %v", err)
	}
}
