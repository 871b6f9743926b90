package parse

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary reviewer output through the whole parsing
// chain (Extract, Decode, CheckViolations) and arbitrary diffs through
// ParseDiff: nothing may panic, and what comes out must be consistent.
func FuzzParse(f *testing.F) {
	f.Add("```json\n{\"status\":\"pass\"}\n```", "")
	f.Add(`{"status":"fail","violations":[{"file":"a.go","line":1,"issue":"i","priority":"high","status":"new"}]}`,
		"diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1 @@\n+x\n")
	f.Add(`text { "status": "fail", "violations": [ { "file": "x", "line": "?" } ] } }`, "@@ -1 +1 @@\n+")
	f.Add("{{{{\"\\\"}}}}", "+++ \"b/\\303\"\n@@ -a,b +c,d @@\n")
	f.Fuzz(func(t *testing.T, output, diff string) {
		ex, err := Extract(output)
		if err != nil {
			if !errors.Is(err, ErrNoJSON) {
				t.Fatalf("Extract: unexpected error %v", err)
			}
		} else if r, err := Decode(ex.Object); err == nil {
			if r.Status != StatusPass && r.Status != StatusFail {
				t.Fatalf("Decode: status %q", r.Status)
			}
			c := CheckViolations(r.Violations)
			if len(c.Kept)+len(c.Dropped) != len(r.Violations) {
				t.Fatalf("CheckViolations lost violations: %d + %d != %d", len(c.Kept), len(c.Dropped), len(r.Violations))
			}
			for _, v := range c.Kept {
				if _, ok := LineNumber(v.Line); !ok || v.File == "" || v.Issue == "" || v.Priority == "" {
					t.Fatalf("kept an incomplete violation: %+v", v)
				}
			}
		}
		s := ParseDiff(diff)
		paths := NewPaths("/repo", s.Files())
		for _, file := range s.Files() {
			if got := paths.Canonical(file); got != file || !s.Has(got) {
				t.Fatalf("Canonical(%q) = %q, in the diff: %v", file, got, s.Has(got))
			}
		}
	})
}
