package modelstub

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// OpenAI returns a handler for the OpenAI APIs: the Responses API as Codex
// calls it (POST /v1/responses, streamed or not) and Chat Completions as
// Qwen Code, Factory Droid and Copilot CLI call it (POST
// [/v1]/chat/completions), answered from replies, and GET [/v1]/models;
// anything else is 404. Every request is recorded.
func OpenAI(rec *Recorder, replies *Replies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := readBody(r)
		if err != nil {
			record(rec, "openai", r, raw, false, "")
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		path := strings.TrimSuffix(r.URL.Path, "/")
		switch {
		case r.Method == http.MethodPost && path == "/v1/responses":
			var req struct {
				Model  string `json:"model"`
				Stream bool   `json:"stream"`
			}
			_ = json.Unmarshal(raw, &req)
			text := resolveMatch(replies.Next(), UserTexts("openai", raw))
			record(rec, "openai", r, raw, true, text)
			if req.Model == "" {
				req.Model = "gpt-stub"
			}
			if req.Stream {
				openaiStream(w, req.Model, text)
				return
			}
			writeJSON(w, http.StatusOK, openaiResponse(req.Model, text, "completed"))
		case r.Method == http.MethodPost && strings.HasSuffix(path, chatPath):
			chatCompletions(w, r, raw, rec, replies)
		case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
			record(rec, "openai", r, raw, false, "")
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}})
		default:
			record(rec, "openai", r, raw, false, "")
			writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
				"type": "invalid_request_error", "code": "not_found",
				"message": "modelstub: no such endpoint " + r.Method + " " + r.URL.Path,
			}})
		}
	})
}

func openaiMessage(text, status string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"id": "msg_stub", "type": "message", "status": status, "role": "assistant", "content": content}
}

func openaiResponse(model, text, status string) map[string]any {
	output := []any{}
	if status == "completed" {
		output = append(output, openaiMessage(text, status))
	}
	return map[string]any{
		"id": "resp_stub", "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": model, "output": output,
		"usage": map[string]any{
			"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 3, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 13,
		},
	}
}

func openaiStream(w http.ResponseWriter, model, text string) {
	s := newSSE(w)
	seq := 0
	ev := func(name string, fields map[string]any) {
		fields["type"] = name
		fields["sequence_number"] = seq
		seq++
		s.event(name, fields)
	}
	ev("response.created", map[string]any{"response": openaiResponse(model, text, "in_progress")})
	ev("response.in_progress", map[string]any{"response": openaiResponse(model, text, "in_progress")})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": openaiMessage(text, "in_progress")})
	ev("response.content_part.added", map[string]any{"item_id": "msg_stub", "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	ev("response.output_text.delta", map[string]any{"item_id": "msg_stub", "output_index": 0, "content_index": 0, "delta": text})
	ev("response.output_text.done", map[string]any{"item_id": "msg_stub", "output_index": 0, "content_index": 0, "text": text})
	ev("response.content_part.done", map[string]any{"item_id": "msg_stub", "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": openaiMessage(text, "completed")})
	ev("response.completed", map[string]any{"response": openaiResponse(model, text, "completed")})
}
