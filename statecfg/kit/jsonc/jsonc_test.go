package jsonc

import (
	"encoding/json"
	"testing"
)

// TestStrip is a corpus of settings files as the clients and their users
// write them: what each holds as JSON once read as a JSONC client reads it.
func TestStrip(t *testing.T) {
	cases := []struct {
		name, in, want string
		form           Form
	}{
		{"plain", `{"a": 1}`, `{"a":1}`, Form{}},
		{"line comments (Gemini CLI users)", "{\n  // the model\n  \"a\": 1 // one\n}\n", `{"a":1}`, Form{Comments: true}},
		{"block comment", "{/* x */\"a\": /* y\n z */ 1}", `{"a":1}`, Form{Comments: true}},
		{"Copilot CLI's header", "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": [\"/p\"]\n}\n",
			`{"trustedFolders":["/p"]}`, Form{Comments: true}},
		{"slashes in strings", `{"url": "http://x//y", "c": "/* no */"}`, `{"c":"/* no */","url":"http://x//y"}`, Form{}},
		{"escaped quote", `{"a": "say \"//\"", "b": 2}`, `{"a":"say \"//\"","b":2}`, Form{}},
		{"byte order mark", "\xEF\xBB\xBF{\"a\": 1}", `{"a":1}`, Form{BOM: true}},
		{"CRLF and comment", "{\r\n  \"a\": 1 // x\r\n}\r\n", `{"a":1}`, Form{CRLF: true, Comments: true}},
	}
	for _, tc := range cases {
		out, form := Strip([]byte(tc.in))
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Errorf("%s: %v in %q", tc.name, err, out)
			continue
		}
		got, _ := json.Marshal(v)
		if string(got) != tc.want || form != tc.form {
			t.Errorf("%s: %s %+v, want %s %+v", tc.name, got, form, tc.want, tc.form)
		}
	}
	if got := string(Restore([]byte("{\n}\n"), Form{BOM: true, CRLF: true})); got != "\xEF\xBB\xBF{\r\n}\r\n" {
		t.Errorf("Restore: %q", got)
	}
}

// FuzzStrip: stripping keeps the length and every newline, and never makes
// strict JSON into something else.
func FuzzStrip(f *testing.F) {
	f.Add([]byte(`{"a": "//", /* c */ "b": [1, 2]} // t`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, form := Strip(data)
		n := len(data)
		if form.BOM {
			n -= 3
		}
		if len(out) != n {
			t.Fatalf("length %d, want %d", len(out), n)
		}
		if json.Valid(data) && !form.BOM && string(out) != string(data) {
			t.Fatalf("strict JSON changed: %q -> %q", data, out)
		}
	})
}
