package builtin

import (
	"strings"
	"testing"
)

// TestEveryNameHasAPrompt pins that each name has its embedded prompt with
// the three parts every built-in review must have.
func TestEveryNameHasAPrompt(t *testing.T) {
	for _, name := range Names() {
		p, ok := Prompt(name)
		if !ok || strings.TrimSpace(p) == "" {
			t.Fatalf("%s: no prompt", name)
		}
		for _, part := range []string{"## Look for", "## Do not report", "## Priority", "critical:", "high:", "medium:", "low:"} {
			if !strings.Contains(p, part) {
				t.Errorf("%s: prompt lacks %q", name, part)
			}
		}
		if Summary(name) == "" || strings.HasPrefix(Summary(name), "#") {
			t.Errorf("%s: summary %q", name, Summary(name))
		}
	}
	if entries, _ := prompts.ReadDir("prompts"); len(entries) != len(Names()) {
		t.Errorf("%d prompt files for %d names", len(entries), len(Names()))
	}
}

func TestUnknown(t *testing.T) {
	for _, name := range []string{"", "Security", "code_quality", "prompts/security"} {
		if Known(name) {
			t.Errorf("Known(%q)", name)
		}
		if _, ok := Prompt(name); ok {
			t.Errorf("Prompt(%q) found", name)
		}
	}
}

func TestCompose(t *testing.T) {
	sec, _ := Prompt(Security)
	for _, tc := range []struct {
		name, builtin, body string
		want                func(string) bool
	}{
		{"builtin alone", Security, "", func(s string) bool { return s == sec }},
		{"blank body", Security, "\n  \n", func(s string) bool { return s == sec }},
		{"body appended", Security, "\nAlso check the SQL in db/.\n", func(s string) bool {
			return strings.HasPrefix(s, strings.TrimRight(sec, "\n")) && strings.HasSuffix(s, "Also check the SQL in db/.\n") &&
				strings.Contains(s, "## Project-specific instructions")
		}},
		{"no builtin: the body as it is", "", "Review for bugs.\n", func(s string) bool { return s == "Review for bugs.\n" }},
	} {
		if got := Compose(tc.builtin, tc.body); !tc.want(got) {
			t.Errorf("%s: Compose = %q", tc.name, got)
		}
	}
}
