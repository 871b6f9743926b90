package stophook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// TestDeadlineFollowsTheClient: without --timeout, every client's run is
// cancelled under the hook timeout that client applies by default (the
// deadline plus the grace to stop stays below it), at most the 300 s
// earlier installers wrote; with --timeout, that timeout rules. The
// client is the one the input's shape, or the hook's environment, names.
func TestDeadlineFollowsTheClient(t *testing.T) {
	root := project(t, "")
	stop := func(extra map[string]any) string {
		m := map[string]any{"cwd": root, "session_id": "s"}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, d := range hookproto.Dialects {
		inputs := map[string]struct {
			in  string
			env map[string]string
		}{
			"named": {stop(map[string]any{"hook_event_name": "Stop"}), nil},
		}
		switch d.Agent {
		case hookproto.Codex:
			inputs["shape"] = struct {
				in  string
				env map[string]string
			}{stop(map[string]any{"turn_id": "t", "hook_event_name": "Stop"}), nil}
		case hookproto.Copilot:
			inputs["shape"] = struct {
				in  string
				env map[string]string
			}{stop(map[string]any{"sessionId": "s", "stopReason": "end_turn"}), nil}
		case hookproto.Qwen, hookproto.Droid:
			inputs["env"] = struct {
				in  string
				env map[string]string
			}{stop(map[string]any{"hook_event_name": "Stop"}), map[string]string{d.Env: root, "CLAUDE_PROJECT_DIR": root}}
		}
		for name, tc := range inputs {
			for _, given := range []time.Duration{0, 900 * time.Second} {
				o := Options{AgentTimeout: given, Getenv: env(t, tc.env), Now: time.Now}
				if name == "named" {
					o.Agent = d.Agent
				}
				var got time.Duration
				exec := func(ctx context.Context, _ runner.Options) runner.RunResult {
					dl, _ := ctx.Deadline()
					got = time.Until(dl)
					return runner.RunResult{Status: runner.StatusPassed}
				}
				out, _, _ := callExec(t, o, exec, tc.in)
				if out.Agent != d.Agent {
					t.Errorf("%s/%s: answered as %s", d.Agent, name, out.Agent)
				}
				timeout := given
				if given == 0 {
					timeout = min(d.HookTimeout, DefaultAgentTimeout)
				}
				want := DeadlineFor(timeout)
				if got > want || got < want-5*time.Second {
					t.Errorf("%s/%s --timeout %s: run deadline in %s, want %s", d.Agent, name, given, got, want)
				}
				if want+Grace(want) >= timeout {
					t.Errorf("%s: deadline %s + grace %s reaches the client's %s", d.Agent, want, Grace(want), timeout)
				}
			}
		}
	}
}

// TestDeadlineMissedSaysHowToGiveMoreTime: a run cut by a deadline that
// followed the client's default answers infrastructure_error naming the
// client's default, the settings file and the field to raise; one cut by
// an explicit --timeout only says the deadline passed.
func TestDeadlineMissedSaysHowToGiveMoreTime(t *testing.T) {
	for _, tc := range []struct {
		agent hookproto.Agent
		want  []string
	}{
		{hookproto.Copilot, []string{"deadline of 25s", "Copilot CLI's default hook timeout of 30s",
			`set "timeoutSec" to 600 and add --timeout 600 to its command`, ".github/hooks/agent-gauntlet.json"}},
		{hookproto.Qwen, []string{"deadline of 54s", "Qwen Code's default hook timeout of 1m0s", `set "timeout" to 600`, ".qwen/settings.json"}},
		{hookproto.Gemini, []string{`set "timeout" to 600000 and add --timeout 600`}},
		{hookproto.Droid, []string{"Factory Droid's", ".factory/hooks.json"}},
	} {
		msg := limitFor(Options{}, tc.agent).missed(tc.agent)
		if strings.Contains(msg, "agent-gauntlet init") {
			// init leaves an installed hook as it is: it would change nothing.
			t.Errorf("%s: %q suggests init", tc.agent, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.agent, msg, w)
			}
		}
	}
	if msg := limitFor(Options{AgentTimeout: 60 * time.Second}, hookproto.Qwen).missed(hookproto.Qwen); strings.Contains(msg, "init") {
		t.Errorf("explicit --timeout: %q", msg)
	}
}
