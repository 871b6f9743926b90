package hookproto

import (
	"bytes"
	"encoding/json"
)

// SessionStart is what the gauntlet needs from a session-start hook input:
// Claude Code's SessionStart (session_id, cwd, source: startup, resume,
// clear, compact; Qwen Code and Factory Droid send the same), Cursor's
// sessionStart (conversation_id, workspace_roots) and Copilot CLI's
// (sessionId, cwd, source "new").
type SessionStart struct {
	// Agent is the dialect the input was decoded as.
	Agent Agent
	// Dir is the directory the agent works in; SessionID its session.
	Dir       string
	SessionID string
	// Source is why the session started, "" when the agent does not say.
	Source string
}

// DecodeSessionStart decodes a session-start input as agent's dialect, or,
// when agent is "", as the dialect Detect finds. It fails only for input
// that is empty or not one JSON object (ErrEmpty, ErrNotObject).
func DecodeSessionStart(data []byte, agent Agent) (SessionStart, error) {
	in, err := Decode(data, agent)
	if err != nil {
		return SessionStart{}, err
	}
	var extra struct {
		Source string `json:"source"`
	}
	_ = json.Unmarshal(bytes.TrimSpace(data), &extra) // lenient, as Decode
	return SessionStart{Agent: in.Agent, Dir: in.Dir, SessionID: in.SessionID, Source: extra.Source}, nil
}

// ClaudeSessionStartOutput is Claude Code's SessionStart answer (also the
// shape Codex and Gemini CLI read): additionalContext is added to the
// model's context.
type ClaudeSessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// CopilotSessionStartOutput is Copilot CLI's sessionStart answer:
// additionalContext is added to the model's context.
type CopilotSessionStartOutput struct {
	AdditionalContext string `json:"additionalContext"`
}

// CursorSessionStartOutput is Cursor's sessionStart answer.
type CursorSessionStartOutput struct {
	AdditionalContext string `json:"additional_context"`
}

func encodeClaudeStart(context string) any {
	var out ClaudeSessionStartOutput
	out.HookSpecificOutput.HookEventName = "SessionStart"
	out.HookSpecificOutput.AdditionalContext = context
	return out
}

func encodeCopilotStart(context string) any {
	return CopilotSessionStartOutput{AdditionalContext: context}
}

func encodeCursorStart(context string) any {
	return CursorSessionStartOutput{AdditionalContext: context}
}

// EncodeSessionStart returns the answer that adds context to a new session
// in agent's dialect (Claude Code's for an agent without a session-start
// encoder), as exactly one line of JSON: {} when context is empty (nothing
// to add).
func EncodeSessionStart(agent Agent, context string) []byte {
	if context == "" {
		return line(struct{}{})
	}
	enc := dialect(agent).encodeStart
	if enc == nil {
		enc = encodeClaudeStart
	}
	return line(enc(context))
}
