package hookproto

import (
	"errors"
	"testing"
)

func TestDecodeSessionStart(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want SessionStart
	}{
		{`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}`,
			SessionStart{Agent: Claude, Dir: "/p", SessionID: "s", Source: "startup"}},
		{`{"conversation_id":"c","workspace_roots":["/w"],"hook_event_name":"sessionStart"}`,
			SessionStart{Agent: Cursor, Dir: "/w", SessionID: "c"}},
		{`{"cwd":42,"source":["x"]}`, SessionStart{Agent: Claude}},
		// recorded from Copilot CLI 1.0.102
		{`{"sessionId":"f7fc","timestamp":1795711195975,"cwd":"/p","source":"new","initialPrompt":"do the task"}`,
			SessionStart{Agent: Copilot, Dir: "/p", SessionID: "f7fc", Source: "new"}},
	} {
		got, err := DecodeSessionStart([]byte(tc.in), "")
		if err != nil || got != tc.want {
			t.Errorf("DecodeSessionStart(%s) = %+v, %v", tc.in, got, err)
		}
	}
	if _, err := DecodeSessionStart([]byte("nope"), ""); !errors.Is(err, ErrNotObject) {
		t.Errorf("invalid input: %v", err)
	}
}

func TestEncodeSessionStart(t *testing.T) {
	for _, tc := range []struct {
		agent   Agent
		context string
		want    string
	}{
		{Claude, "Pending <failures> & more\n", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Pending <failures> & more\n"}}` + "\n"},
		{Codex, "x", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}` + "\n"},
		{Cursor, "x", `{"additional_context":"x"}` + "\n"},
		{Claude, "", "{}\n"},
		{Cursor, "", "{}\n"},
	} {
		got := EncodeSessionStart(tc.agent, tc.context)
		assertOneLine(t, got)
		if string(got) != tc.want {
			t.Errorf("EncodeSessionStart(%s, %q) = %s, want %s", tc.agent, tc.context, got, tc.want)
		}
	}
}

// TestEncodeSessionStartEveryAgent: every agent with a session-start hook
// gets its own answer, the others Claude Code's; context never lost.
func TestEncodeSessionStartEveryAgent(t *testing.T) {
	for _, a := range Agents {
		got := EncodeSessionStart(a, "ctx <x>")
		assertOneLine(t, got)
		want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx <x>"}}` + "\n"
		switch a {
		case Cursor:
			want = `{"additional_context":"ctx <x>"}` + "\n"
		case Copilot:
			want = `{"additionalContext":"ctx <x>"}` + "\n"
		}
		if string(got) != want {
			t.Errorf("EncodeSessionStart(%s) = %s, want %s", a, got, want)
		}
	}
}
