package hookproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Input is what the gauntlet needs from any agent's stop-hook input.
type Input struct {
	// Agent is the dialect the input was decoded as.
	Agent Agent
	// Event is the hook event name as sent ("Stop", "AfterAgent", "stop"...),
	// "" when the input has none.
	Event string
	// SessionID identifies the agent session, "" when absent.
	SessionID string
	// Dir is the directory the agent works in (cwd; Cursor: the first
	// workspace root), "" when the input names none.
	Dir string
	// Continuing reports that this stop follows a block by this hook:
	// stop_hook_active (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen
	// Code, Factory Droid) or loop_count > 0
	// (Cursor).
	Continuing bool
	// AgentStatus is how the agent's turn ended as Cursor reports it
	// ("completed", "aborted", "error"); "" when the agent does not say.
	AgentStatus string
}

// Completed reports whether the agent's turn ended normally: only Cursor can
// say otherwise (status "aborted" or "error").
func (in Input) Completed() bool {
	return in.AgentStatus == "" || in.AgentStatus == "completed"
}

// Errors of Decode; both mean the input is invalid.
var (
	// ErrEmpty is returned for an input that is empty or only white space.
	ErrEmpty = errors.New("hook input is empty")
	// ErrNotObject is returned for an input that is not one JSON object.
	ErrNotObject = errors.New("hook input is not a JSON object")
)

// ClaudeInput is Claude Code's Stop input (and the shape shared by Codex and
// Gemini CLI). Fields not listed are ignored.
type ClaudeInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`
	// StopHookActive is the loop signal (true, "true", 1 and "1" all count).
	StopHookActive Flag `json:"stop_hook_active"`
}

// Input normalizes the Claude Code input.
func (c ClaudeInput) Input() Input {
	return Input{Agent: Claude, Event: c.HookEventName, SessionID: c.SessionID, Dir: c.Cwd, Continuing: bool(c.StopHookActive)}
}

// CodexInput is Codex's Stop input: Claude Code's plus turn_id and model.
type CodexInput struct {
	ClaudeInput
	TurnID string `json:"turn_id"`
	Model  string `json:"model"`
}

// Input normalizes the Codex input.
func (c CodexInput) Input() Input {
	in := c.ClaudeInput.Input()
	in.Agent = Codex
	return in
}

// GeminiInput is Gemini CLI's AfterAgent input: Claude Code's plus the
// prompt and the agent's response.
type GeminiInput struct {
	ClaudeInput
	Prompt         string `json:"prompt"`
	PromptResponse string `json:"prompt_response"`
}

// Input normalizes the Gemini CLI input.
func (g GeminiInput) Input() Input {
	in := g.ClaudeInput.Input()
	in.Agent = Gemini
	return in
}

// CursorInput is Cursor's stop input.
type CursorInput struct {
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	HookEventName  string   `json:"hook_event_name"`
	WorkspaceRoots []string `json:"workspace_roots"`
	// Cwd is not part of Cursor's stop input; it is read when no workspace
	// root is given.
	Cwd string `json:"cwd"`
	// Status is "completed", "aborted" or "error".
	Status string `json:"status"`
	// LoopCount counts the follow-ups this hook already caused (1, "1" and
	// true all count as one).
	LoopCount Count `json:"loop_count"`
}

// Input normalizes the Cursor input: the project directory is the first
// workspace root (else cwd) and a positive loop_count is the loop signal.
func (c CursorInput) Input() Input {
	in := Input{Agent: Cursor, Event: c.HookEventName, SessionID: c.ConversationID, Dir: c.Cwd,
		Continuing: c.LoopCount > 0, AgentStatus: c.Status}
	if len(c.WorkspaceRoots) > 0 && c.WorkspaceRoots[0] != "" {
		in.Dir = c.WorkspaceRoots[0]
	}
	return in
}

// CopilotInput is Copilot CLI's agentStop input (camelCase keys).
type CopilotInput struct {
	Cwd            string `json:"cwd"`
	SessionID      string `json:"sessionId"`
	TranscriptPath string `json:"transcriptPath"`
	// StopReason is why the agent stops ("end_turn").
	StopReason string `json:"stopReason"`
	// HookEventName is sent by some Copilot surfaces only.
	HookEventName string `json:"hookEventName"`
	// The snake_case keys are what Copilot CLI sends to a hook of a
	// PascalCase event ("Stop", the form it shares with VS Code).
	SessionIDSnake     string `json:"session_id"`
	HookEventNameSnake string `json:"hook_event_name"`
	// StopHookActive is not documented for Copilot CLI; it is honoured when
	// sent, in any of the forms Flag reads.
	StopHookActive Flag `json:"stop_hook_active"`
}

// Input normalizes the Copilot CLI input.
func (c CopilotInput) Input() Input {
	in := Input{Agent: Copilot, Event: c.HookEventName, SessionID: c.SessionID, Dir: c.Cwd, Continuing: bool(c.StopHookActive)}
	if in.Event == "" {
		in.Event = c.HookEventNameSnake
	}
	if in.SessionID == "" {
		in.SessionID = c.SessionIDSnake
	}
	return in
}

// decodeAs decodes data, already known to be a valid JSON object, as T.
// Type mismatches of known fields leave those fields zero.
func decodeAs[T interface{ Input() Input }](data []byte) Input {
	var v T
	_ = json.Unmarshal(data, &v) // only *json.UnmarshalTypeError is possible here: lenient
	return v.Input()
}

// Decode decodes one stop-hook input as agent's dialect, or, when agent is
// "", as the dialect Detect finds. It fails only when data is empty or not
// one JSON object (ErrEmpty, ErrNotObject).
func Decode(data []byte, agent Agent) (Input, error) {
	data, err := object(data)
	if err != nil {
		return Input{}, err
	}
	if agent == "" {
		agent = detect(data)
	}
	d, ok := Lookup(agent)
	if !ok {
		return Input{}, fmt.Errorf("decode hook input: unknown agent %q", agent)
	}
	return d.decode(data), nil
}

// claudeShaped decodes Claude Code's shape as agent's input (Qwen Code and
// Factory Droid send it).
func claudeShaped(agent Agent) func([]byte) Input {
	return func(data []byte) Input {
		in := decodeAs[ClaudeInput](data)
		in.Agent = agent
		return in
	}
}

// Detect names the agent whose input data looks like, from its shape: the
// first row of Dialects whose distinguishing keys data has (Codex's
// turn_id, Gemini CLI's event "AfterAgent" or prompt_response, Cursor's
// conversation_id, workspace_roots, loop_count or event "stop", Copilot
// CLI's event "agentStop" or camelCase sessionId/stopReason without
// hook_event_name), else Claude Code. Data that is not a JSON object is
// Claude Code's. Clients that send Claude Code's shape are recognised by
// their environment instead (FromEnv).
func Detect(data []byte) Agent {
	data, err := object(data)
	if err != nil {
		return Claude
	}
	return detect(data)
}

// keys records which distinguishing keys an input has.
type keys struct {
	HookEventName   *string         `json:"hook_event_name"`
	HookEventCamel  *string         `json:"hookEventName"`
	TurnID          json.RawMessage `json:"turn_id"`
	PromptResponse  json.RawMessage `json:"prompt_response"`
	ConversationID  json.RawMessage `json:"conversation_id"`
	WorkspaceRoots  json.RawMessage `json:"workspace_roots"`
	LoopCount       json.RawMessage `json:"loop_count"`
	SessionIDCamel  json.RawMessage `json:"sessionId"`
	StopReason      json.RawMessage `json:"stopReason"`
	StopReasonSnake json.RawMessage `json:"stop_reason"`
}

// event is the input's event name, snake_case key first.
func (k keys) event() string {
	switch {
	case k.HookEventName != nil:
		return *k.HookEventName
	case k.HookEventCamel != nil:
		return *k.HookEventCamel
	}
	return ""
}

func detect(data []byte) Agent {
	var k keys
	_ = json.Unmarshal(data, &k) // lenient, see decodeAs
	for _, d := range Dialects {
		if d.shape != nil && d.shape(k) {
			return d.Agent
		}
	}
	return Claude
}

// object returns data trimmed of surrounding white space when it is exactly
// one JSON object.
func object(data []byte) ([]byte, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if data[0] != '{' || !json.Valid(data) {
		return nil, ErrNotObject
	}
	return data, nil
}
