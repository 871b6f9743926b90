package modelstub

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Anthropic returns a handler for the Anthropic Messages API as Claude Code
// calls it: POST /v1/messages (streamed or not) answered from replies,
// POST /v1/messages/count_tokens, GET /v1/models; anything else is 404.
// Every request is recorded.
func Anthropic(rec *Recorder, replies *Replies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := readBody(r)
		if err != nil {
			record(rec, "anthropic", r, raw, false, "")
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		path := strings.TrimSuffix(r.URL.Path, "/")
		switch {
		case r.Method == http.MethodPost && path == "/v1/messages":
			var req struct {
				Model  string `json:"model"`
				Stream bool   `json:"stream"`
			}
			_ = json.Unmarshal(raw, &req)
			text := resolveMatch(replies.Next(), UserTexts("anthropic", raw))
			record(rec, "anthropic", r, raw, true, text)
			if req.Model == "" {
				req.Model = "claude-stub"
			}
			if tu, ok := parseToolUse(text); ok {
				anthropicToolUse(w, req.Model, req.Stream, tu)
				return
			}
			if req.Stream {
				anthropicStream(w, req.Model, text)
				return
			}
			writeJSON(w, http.StatusOK, anthropicMessage(req.Model, text))
		case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
			record(rec, "anthropic", r, raw, false, "")
			writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 10})
		case r.Method == http.MethodGet && path == "/v1/models":
			record(rec, "anthropic", r, raw, false, "")
			writeJSON(w, http.StatusOK, map[string]any{
				"data":     []any{},
				"has_more": false,
				"first_id": nil,
				"last_id":  nil,
			})
		default:
			record(rec, "anthropic", r, raw, false, "")
			writeJSON(w, http.StatusNotFound, map[string]any{
				"type":  "error",
				"error": map[string]any{"type": "not_found_error", "message": "modelstub: no such endpoint " + r.Method + " " + r.URL.Path},
			})
		}
	})
}

func anthropicUsage(out int) map[string]any {
	return map[string]any{
		"input_tokens": 10, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
	}
}

func anthropicMessage(model, text string) map[string]any {
	return map[string]any{
		"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": anthropicUsage(len(strings.Fields(text)) + 1),
	}
}

func anthropicStream(w http.ResponseWriter, model, text string) {
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(1),
	}})
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	s.event("ping", map[string]any{"type": "ping"})
	s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": text}})
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": len(strings.Fields(text)) + 1}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
