package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/report/reporttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdValidReport validates a report file as its consumers read it (see
// reporttest):
//
//	validreport json|junit|sarif FILE
//
// json: one document valid against docs/report.schema.json; junit: the
// de-facto JUnit schema with consistent counts; sarif: go-sarif's parser
// and the official SARIF 2.1.0 schema. FILE may be stdout.
func cmdValidReport(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: validreport json|junit|sarif FILE")
	}
	data := []byte(ts.ReadFile(args[1]))
	var err error
	switch args[0] {
	case "json":
		err = reporttest.ValidateJSON(data)
	case "junit":
		_, err = reporttest.ValidateJUnit(data)
	case "sarif":
		err = reporttest.ValidateSARIF(data)
	default:
		ts.Fatalf("validreport: unknown format %q", args[0])
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s is not a valid %s report: %v", args[1], args[0], err)
	case err == nil && neg:
		ts.Fatalf("%s is a valid %s report", args[1], args[0])
	}
}

// cmdJSONQ checks values in a JSON file:
//
//	jsonq FILE [path=value | path~regexp | len(path)=length | !path]...
//
// A path is keys and array indexes joined by dots (gates.0.status). value
// is compared with a string as it is, with any other value as its JSON
// text (run=1, error=null); len(path)=length wants an array or object of
// that many items; !path wants the path absent. FILE may be stdout.
func cmdJSONQ(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: jsonq FILE [path=value | path~regexp | len(path)=length | !path]...")
	}
	var doc any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	dec.UseNumber()
	ts.Check(dec.Decode(&doc))
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "!"):
			if v, ok := lookup(doc, a[1:]); ok {
				ts.Fatalf("%s present: %s", a[1:], jsonText(v))
			}
		case strings.HasPrefix(a, "len(") && strings.Contains(a, ")="):
			path, n, _ := strings.Cut(strings.TrimPrefix(a, "len("), ")=")
			want, err := strconv.Atoi(n)
			ts.Check(err)
			got := -1
			switch v := mustLookup(ts, doc, path).(type) {
			case []any:
				got = len(v)
			case map[string]any:
				got = len(v)
			}
			if got != want {
				ts.Fatalf("%s has %d items, want %d", path, got, want)
			}
		case strings.Contains(a, "="):
			path, want, _ := strings.Cut(a, "=")
			if got := jsonText(mustLookup(ts, doc, path)); got != want {
				ts.Fatalf("%s = %q, want %q", path, got, want)
			}
		case strings.Contains(a, "~"):
			path, re, _ := strings.Cut(a, "~")
			rx, err := regexp.Compile(re)
			ts.Check(err)
			if got := jsonText(mustLookup(ts, doc, path)); !rx.MatchString(got) {
				ts.Fatalf("%s = %q, does not match %q", path, got, re)
			}
		default:
			ts.Fatalf("jsonq: bad check %q", a)
		}
	}
}

// lookup follows path through v.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[k]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func mustLookup(ts *testscript.TestScript, v any, path string) any {
	got, ok := lookup(v, path)
	if !ok {
		ts.Fatalf("no %s in the document", path)
	}
	return got
}

// jsonText is a string as it is, anything else as JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
