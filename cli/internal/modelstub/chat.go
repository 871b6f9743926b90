package modelstub

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// chatPath is the OpenAI Chat Completions endpoint, below whatever base
// path a client puts before it (/v1, or none).
const chatPath = "/chat/completions"

// chatCompletions answers one Chat Completions request from replies, as
// Qwen Code, Factory Droid and Copilot CLI call it: streamed as
// chat.completion.chunk events ending in data: [DONE], or as one
// chat.completion object.
func chatCompletions(w http.ResponseWriter, r *http.Request, raw json.RawMessage, rec *Recorder, replies *Replies) {
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
	if !req.Stream {
		writeJSON(w, http.StatusOK, chatCompletion(req.Model, text))
		return
	}
	s := newSSE(w)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{
			"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	s.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil))
	s.event("", chunk(map[string]any{"content": text}, nil, nil))
	s.event("", chunk(map[string]any{}, "stop", chatUsage(text)))
	s.done()
}

// chatCompletion is the answer to a request that does not stream.
func chatCompletion(model, text string) map[string]any {
	return map[string]any{
		"id": "chatcmpl-stub", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop",
		}},
		"usage": chatUsage(text),
	}
}

func chatUsage(text string) map[string]any {
	out := len(strings.Fields(text)) + 1
	return map[string]any{"prompt_tokens": 10, "completion_tokens": out, "total_tokens": 10 + out}
}

// chatUserTexts returns the texts of a Chat Completions request's user
// messages, newest first; ok is false for a body without messages.
func chatUserTexts(body json.RawMessage) (texts []string, ok bool) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || req.Messages == nil {
		return nil, false
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			texts = append(texts, contentText(req.Messages[i].Content))
		}
	}
	return texts, true
}
