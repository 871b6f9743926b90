package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// ToolUsePrefix starts a reply that the Anthropic stand-in answers as a tool
// call instead of text:
//
//	tool_use NAME {"input":"as JSON"}
//
// answers one tool_use block calling NAME with that input (stop_reason
// "tool_use"), so a scenario can make the model try a tool and then check
// what the client did with it: the client's next request carries the
// tool_result (in the request log), and the following reply ends the turn.
const ToolUsePrefix = "tool_use "

// toolUseIDs numbers the tool calls of the process, so that every
// tool_use id is unique.
var toolUseIDs atomic.Int64

// toolUse is a scripted tool call.
type toolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// parseToolUse reads a reply written as ToolUsePrefix NAME INPUT; ok is
// false for any other reply, which stays a text answer.
func parseToolUse(reply string) (toolUse, bool) {
	rest, found := strings.CutPrefix(reply, ToolUsePrefix)
	if !found {
		return toolUse{}, false
	}
	name, input, _ := strings.Cut(strings.TrimSpace(rest), " ")
	input = strings.TrimSpace(input)
	if input == "" {
		input = "{}"
	}
	if name == "" || !json.Valid([]byte(input)) {
		return toolUse{}, false
	}
	return toolUse{ID: fmt.Sprintf("toolu_stub_%d", toolUseIDs.Add(1)), Name: name, Input: json.RawMessage(input)}, true
}

// anthropicToolUse answers a Messages request with the tool call tu, streamed
// or as one message.
func anthropicToolUse(w http.ResponseWriter, model string, stream bool, tu toolUse) {
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "tool_use", "id": tu.ID, "name": tu.Name, "input": tu.Input}},
			"stop_reason": "tool_use", "stop_sequence": nil,
			"usage": anthropicUsage(5),
		})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(1),
	}})
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "tool_use", "id": tu.ID, "name": tu.Name, "input": map[string]any{}}})
	s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": string(tu.Input)}})
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
