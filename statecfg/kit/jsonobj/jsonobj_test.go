package jsonobj

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, out string // out "" : an error
	}{
		{`{"b": 1, "a": {"x": [1, 2]}}`, `{"b":1,"a":{"x":[1,2]}}`},
		{`{"a": 1, "b": 2, "a": 3}`, `{"a":3,"b":2}`},
		{`{}`, `{}`},
		{`{"cmd": "a && b > c"}`, `{"cmd":"a && b > c"}`},
		{`[1]`, ""},
		{`{"a": 1} {"b": 2}`, ""},
		{`{"a": 1}x`, ""},
		{`{"a": }`, ""},
		{``, ""},
	} {
		o, err := Parse([]byte(tt.in))
		if tt.out == "" {
			if err == nil {
				t.Errorf("Parse(%q) took it", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got, err := o.MarshalJSON(); err != nil || string(got) != tt.out {
			t.Errorf("Parse(%q) = %s, %v; want %s", tt.in, got, err, tt.out)
		}
	}
}

func TestEdits(t *testing.T) {
	o, err := Parse([]byte(`{"file": "a.go", "status": "new", "fix": "f", "hooks": null, "list": {"x": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	o.Set("status", json.RawMessage(`"fixed"`))
	o.SetAfter("result", "status", json.RawMessage(`"done <now>"`))
	o.SetAfter("tail", "absent", json.RawMessage(`1`))
	o.SetFirst("version", json.RawMessage(`1`))
	o.SetFirst("file", json.RawMessage(`"b.go"`))
	got, _ := o.MarshalJSON()
	want := `{"version":1,"file":"b.go","status":"fixed","result":"done <now>","fix":"f","hooks":null,"list":{"x":1},"tail":1}`
	if string(got) != want {
		t.Errorf("edited:\n got %s\nwant %s", got, want)
	}
	if c, err := o.Child("hooks"); err != nil || len(c.keys) != 0 {
		t.Errorf("Child(null) = %v, %v", c, err)
	}
	if _, err := o.Child("fix"); err == nil {
		t.Error("Child of a string")
	}
	if l, err := o.Array("missing"); err != nil || l != nil {
		t.Errorf("Array(missing) = %v, %v", l, err)
	}
	if _, err := o.Array("list"); err == nil {
		t.Error("Array of an object")
	}
	p, err := Pretty(map[string]string{"cmd": "a && b"})
	if err != nil || string(p) != "{\n  \"cmd\": \"a && b\"\n}\n" {
		t.Errorf("Pretty = %q, %v", p, err)
	}
}

// Parse never panics, and what it takes comes out as the same JSON value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":[1,"x"]},"a":2}`, `[]`, `{`, `{"a":1}{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		out, err := o.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal(out, &b) != nil {
			t.Fatalf("%q -> %q: not both JSON", data, out)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%q -> %q: another value", data, out)
		}
	})
}
