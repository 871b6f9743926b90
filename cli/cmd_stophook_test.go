package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestHookDeadline(t *testing.T) {
	for _, tc := range []struct {
		timeout, deadline string
		want              time.Duration
		warning           string
	}{
		// no --timeout: a hook the TypeScript tool installed (Claude Code
		// timeout 300 s) must answer before it is killed
		{"", "", 270 * time.Second, ""},
		{"300", "", 270 * time.Second, ""},
		{"600", "", 540 * time.Second, ""},
		{" 900 ", "", 810 * time.Second, ""},
		{"60", "", 54 * time.Second, ""},
		{"abc", "", 270 * time.Second, `--timeout "abc" is not a positive number of seconds; using 300`},
		{"0", "", 270 * time.Second, "using 300"},
		{"-5", "", 270 * time.Second, "using 300"},
		{"99999999999999999", "", 0, ""}, // huge: no overflow (checked below)
		{"600", "90s", 90 * time.Second, ""},
		{"", "90s", 90 * time.Second, ""},
		{"", "soon", 270 * time.Second, `--deadline "soon" is not a positive duration; ignored`},
	} {
		var warnings []string
		warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
		got := hookDeadline(tc.timeout, tc.deadline, warn)
		if tc.want == 0 {
			if got <= 270*time.Second {
				t.Errorf("hookDeadline(%q, %q) = %s, want a long deadline", tc.timeout, tc.deadline, got)
			}
		} else if got != tc.want {
			t.Errorf("hookDeadline(%q, %q) = %s, want %s", tc.timeout, tc.deadline, got, tc.want)
		}
		joined := strings.Join(warnings, "\n")
		if (tc.warning == "") != (joined == "") || !strings.Contains(joined, tc.warning) {
			t.Errorf("hookDeadline(%q, %q) warnings %q, want %q", tc.timeout, tc.deadline, joined, tc.warning)
		}
	}
}
