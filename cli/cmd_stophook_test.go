package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
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

// TestReadStopArgs: the doctor reads an installed command line with the
// stop hook's own parse: the last --timeout wins, a flag the hook rejects
// is an error (the hook answers an error at every stop), a value it
// ignores a warning, the command's own assignments stand for the flags'
// env variables.
func TestReadStopArgs(t *testing.T) {
	cases := []struct {
		command string
		timeout time.Duration
		agent   hookproto.Agent
		err     bool
		warns   int
	}{
		{command: "agent-gauntlet stop-hook"},
		{command: "/usr/local/bin/agent-gauntlet stop-hook --agent claude", agent: hookproto.Claude},
		{command: "agent-gauntlet stop-hook --agent claude --timeout 600", agent: hookproto.Claude, timeout: 600 * time.Second},
		{command: "agent-gauntlet stop-hook --timeout=300", timeout: 300 * time.Second},
		{command: `agent-gauntlet stop-hook "--timeout" 300`, timeout: 300 * time.Second},
		{command: "GAUNTLET_STOP_HOOK_TIMEOUT=900 agent-gauntlet stop-hook", timeout: 900 * time.Second},
		{command: "GAUNTLET_STOP_HOOK_TIMEOUT=900 agent-gauntlet stop-hook --timeout 60", timeout: 60 * time.Second},
		{command: "agent-gauntlet stop-hook --timeout 600 --timeout 9000", timeout: 9000 * time.Second},
		{command: "agent-gauntlet stop-hook --timeout=600 --timeout=30", timeout: 30 * time.Second},
		{command: "agent-gauntlet stop-hook --agnet claude --timeout 600", err: true},
		{command: "agent-gauntlet stop-hook --agent claude --timeout -5", err: true},
		{command: "agent-gauntlet stop-hook --agent claude --timeoutx 600", err: true},
		{command: "agent-gauntlet stop-hook extra", err: true},
		{command: "agent-gauntlet stop-hook --help", err: true},
		{command: "agent-gauntlet stop-hook --timeout abc", warns: 1},
		{command: "agent-gauntlet stop-hook --timeout=-5", warns: 1},
		{command: "agent-gauntlet stop-hook --agent nobody --timeout 60", warns: 1, timeout: 60 * time.Second},
		{command: "agent-gauntlet stop-hook --deadline 90s --stdin-timeout 30s"},
	}
	for _, tc := range cases {
		inv, ok := hookcmd.Find(tc.command, "stop-hook")
		if !ok {
			t.Fatalf("%q: not a stop-hook command", tc.command)
		}
		got := readStopArgs(inv)
		if (got.Err != nil) != tc.err || got.Timeout != tc.timeout || got.Agent != tc.agent || len(got.Warnings) != tc.warns {
			t.Errorf("readStopArgs(%q) = %+v, want timeout %s agent %q error %t warnings %d", tc.command, got, tc.timeout, tc.agent, tc.err, tc.warns)
		}
	}
	for _, a := range hookproto.Agents {
		inv, _ := hookcmd.Find(install.Command(a, install.DefaultTimeoutSeconds), "stop-hook")
		if got := readStopArgs(inv); got.Err != nil || got.Timeout != install.DefaultTimeoutSeconds*time.Second || got.Agent != a {
			t.Errorf("installed command for %s read as %+v", a, got)
		}
	}
}
