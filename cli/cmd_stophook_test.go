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
		want, override    time.Duration
		warning           string
	}{
		// no --timeout: the stop hook follows the client's default
		{"", "", 0, 0, ""},
		{"300", "", 300 * time.Second, 0, ""},
		{" 900 ", "", 900 * time.Second, 0, ""},
		{"60", "", 60 * time.Second, 0, ""},
		{"abc", "", 0, 0, `--timeout "abc" is not a positive number of seconds; assuming the client's default hook timeout`},
		{"0", "", 0, 0, "assuming the client's default"},
		{"-5", "", 0, 0, "assuming the client's default"},
		{"99999999999999999", "", -1, 0, ""}, // huge: no overflow (checked below)
		{"600", "90s", 600 * time.Second, 90 * time.Second, ""},
		{"", "90s", 0, 90 * time.Second, ""},
		{"", "soon", 0, 0, `--deadline "soon" is not a positive duration; ignored`},
	} {
		var warnings []string
		warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
		got, override := hookDeadline(tc.timeout, tc.deadline, warn)
		if tc.want < 0 {
			if got <= time.Hour {
				t.Errorf("hookDeadline(%q, %q) = %s, want a long timeout", tc.timeout, tc.deadline, got)
			}
		} else if got != tc.want || override != tc.override {
			t.Errorf("hookDeadline(%q, %q) = %s, %s, want %s, %s", tc.timeout, tc.deadline, got, override, tc.want, tc.override)
		}
		joined := strings.Join(warnings, "\n")
		if (tc.warning == "") != (joined == "") || !strings.Contains(joined, tc.warning) {
			t.Errorf("hookDeadline(%q, %q) warnings %q, want %q", tc.timeout, tc.deadline, joined, tc.warning)
		}
	}
}
