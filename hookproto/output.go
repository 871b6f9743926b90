package hookproto

import (
	"bytes"
	"encoding/json"
)

// Decision values on the wire.
const (
	// DecisionApprove lets the agent stop (Claude Code, Gemini CLI).
	DecisionApprove = "approve"
	// DecisionBlock keeps the agent working (Claude Code, Codex, Copilot CLI).
	DecisionBlock = "block"
	// DecisionDeny keeps the agent working (Gemini CLI).
	DecisionDeny = "deny"
)

// Response is the gauntlet's answer to one stop, before encoding.
type Response struct {
	// Block keeps the agent working; false lets it stop.
	Block bool
	// Status is the gauntlet status, written unchanged.
	Status string
	// Message is a one-line summary for the human.
	Message string
	// Instructions are what the agent must do (block only).
	Instructions string
	// Routine marks a message that needs no one's attention: dialects that
	// show every message to the user as a warning (Codex) leave it out.
	Routine bool
	// Pending are the gates that wait to be verified (job ids), for
	// programs reading the answer; the dialects that accept keys of their
	// own carry them as "pending".
	Pending []string
}

// instructions is what a block feeds back to the agent; never empty, since
// every agent needs a reason to continue.
func (r Response) instructions() string {
	switch {
	case r.Instructions != "":
		return r.Instructions
	case r.Message != "":
		return r.Message
	}
	return "agent-gauntlet blocked this stop."
}

// ClaudeOutput is Claude Code's Stop answer, the default dialect:
// {"decision","status","message","systemMessage"} and, on block only,
// "reason" and "stopReason" carrying the instructions.
type ClaudeOutput struct {
	Decision      string `json:"decision"`
	Status        string `json:"status"`
	Message       string `json:"message"`
	SystemMessage string `json:"systemMessage"`
	Reason        string `json:"reason,omitempty"`
	StopReason    string `json:"stopReason,omitempty"`
	// Pending are the gates that wait to be verified, when any.
	Pending []string `json:"pending,omitempty"`
}

func encodeClaude(r Response) any {
	out := ClaudeOutput{Decision: DecisionApprove, Status: r.Status, Message: r.Message, SystemMessage: r.Message,
		Pending: r.Pending}
	if r.Block {
		out.Decision = DecisionBlock
		out.Reason = r.instructions()
		out.StopReason = out.Reason
	}
	return out
}

// CodexOutput is Codex's Stop answer. Codex's schema allows no other keys
// than continue, decision, reason, stopReason, suppressOutput and
// systemMessage, and decision only "block": allow is {} or
// {"systemMessage"}, block is {"decision":"block","reason"[,"systemMessage"]}.
type CodexOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

func encodeCodex(r Response) any {
	if r.Block {
		return CodexOutput{Decision: DecisionBlock, Reason: r.instructions(), SystemMessage: r.Message}
	}
	if r.Routine {
		return CodexOutput{}
	}
	return CodexOutput{SystemMessage: r.Message}
}

// GeminiOutput is Gemini CLI's AfterAgent answer: block is "deny" with the
// instructions as reason; allow is the Claude Code style approve, which
// Gemini CLI accepts.
type GeminiOutput struct {
	Decision      string `json:"decision"`
	Status        string `json:"status"`
	Message       string `json:"message"`
	SystemMessage string `json:"systemMessage"`
	Reason        string `json:"reason,omitempty"`
	// Pending are the gates that wait to be verified, when any.
	Pending []string `json:"pending,omitempty"`
}

func encodeGemini(r Response) any {
	out := GeminiOutput{Decision: DecisionApprove, Status: r.Status, Message: r.Message, SystemMessage: r.Message,
		Pending: r.Pending}
	if r.Block {
		out.Decision = DecisionDeny
		out.Reason = r.instructions()
	}
	return out
}

// CursorOutput is Cursor's stop answer: a followup_message is sent to the
// agent as the next user message; {} lets it stop.
type CursorOutput struct {
	FollowupMessage string `json:"followup_message,omitempty"`
}

func encodeCursor(r Response) any {
	if r.Block {
		return CursorOutput{FollowupMessage: r.instructions()}
	}
	return CursorOutput{}
}

// CopilotOutput is Copilot CLI's agentStop answer: block enqueues reason as
// the next prompt; {} lets the agent stop.
type CopilotOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func encodeCopilot(r Response) any {
	if r.Block {
		return CopilotOutput{Decision: DecisionBlock, Reason: r.instructions()}
	}
	return CopilotOutput{}
}

// Encode returns r in agent's dialect as exactly one line of JSON ending in
// a newline; an unknown or empty agent gets Claude Code's dialect.
func Encode(agent Agent, r Response) []byte {
	return line(dialect(agent).encode(r))
}

// line encodes v as exactly one line of JSON, HTML characters unescaped.
func line(v any) []byte {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		// Unreachable: the outputs hold strings only. Keep the promise of
		// one valid line all the same.
		return []byte("{}\n")
	}
	return buf.Bytes()
}

// AllowTells reports whether agent's client shows a person the message of
// an answer that lets the agent stop. Cursor's and Copilot CLI's allow is
// {}: what the gauntlet has to say then must reach someone another way.
// Read from the dialect's own encoding, so it cannot drift from it.
func AllowTells(agent Agent) bool {
	const probe = "agent-gauntlet allow probe"
	return bytes.Contains(Encode(agent, Response{Status: "infrastructure_error", Message: probe}), []byte(probe))
}
