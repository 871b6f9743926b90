package modelstub

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Gemini returns a handler for the Gemini API as Gemini CLI calls it:
// POST /v1beta/models/<model>:streamGenerateContent (SSE with alt=sse) and
// :generateContent answered from replies, :countTokens, GET /v1beta/models;
// anything else is 404. Every request is recorded.
func Gemini(rec *Recorder, replies *Replies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := readBody(r)
		if err != nil {
			record(rec, "gemini", r, raw, false, "")
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		model, method := geminiRoute(r.URL.Path)
		switch {
		case r.Method == http.MethodPost && method == "streamGenerateContent":
			text := resolveMatch(replies.Next(), UserTexts("gemini", raw))
			record(rec, "gemini", r, raw, true, text)
			if r.URL.Query().Get("alt") == "sse" {
				s := newSSE(w)
				s.event("", geminiResponse(model, text))
				return
			}
			writeJSON(w, http.StatusOK, []any{geminiResponse(model, text)})
		case r.Method == http.MethodPost && method == "generateContent":
			// The CLI's own JSON calls (model router, next-speaker check)
			// ask for a schema: answer a value that fits it, off the queue.
			if schema, ok := geminiResponseSchema(raw); ok {
				text := synthJSON(schema)
				record(rec, "gemini", r, raw, false, text)
				writeJSON(w, http.StatusOK, geminiResponse(model, text))
				return
			}
			text := resolveMatch(replies.Next(), UserTexts("gemini", raw))
			record(rec, "gemini", r, raw, true, text)
			writeJSON(w, http.StatusOK, geminiResponse(model, text))
		case r.Method == http.MethodPost && method == "countTokens":
			record(rec, "gemini", r, raw, false, "")
			writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 10})
		case r.Method == http.MethodGet && model == "" && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/models"):
			record(rec, "gemini", r, raw, false, "")
			writeJSON(w, http.StatusOK, map[string]any{"models": []any{}})
		default:
			record(rec, "gemini", r, raw, false, "")
			writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
				"code": 404, "status": "NOT_FOUND",
				"message": "modelstub: no such endpoint " + r.Method + " " + r.URL.Path,
			}})
		}
	})
}

// geminiRoute splits /<version>/models/<model>:<method>.
func geminiRoute(path string) (model, method string) {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return "", ""
	}
	rest := path[i+len("/models/"):]
	j := strings.LastIndex(rest, ":")
	if j < 0 {
		return rest, ""
	}
	return rest[:j], rest[j+1:]
}

func geminiResponse(model, text string) map[string]any {
	if model == "" {
		model = "gemini-stub"
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 3, "totalTokenCount": 13},
		"modelVersion":  model,
	}
}

// geminiResponseSchema returns the response schema of a JSON-mode request.
func geminiResponseSchema(body json.RawMessage) (map[string]any, bool) {
	var req struct {
		GenerationConfig struct {
			ResponseMimeType   string         `json:"responseMimeType"`
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
			ResponseSchema     map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	gc := req.GenerationConfig
	switch {
	case gc.ResponseJSONSchema != nil:
		return gc.ResponseJSONSchema, true
	case gc.ResponseSchema != nil:
		return gc.ResponseSchema, true
	case gc.ResponseMimeType == "application/json":
		return map[string]any{}, true
	}
	return nil, false
}

// synthJSON returns a JSON text that satisfies a (JSON or OpenAPI style)
// schema: required object properties, the first enum value, the minimum of a
// number (else 1), "stub" for strings.
func synthJSON(schema map[string]any) string {
	b, err := json.Marshal(synthValue(schema, 0))
	if err != nil {
		return "{}"
	}
	return string(b)
}

// maxSchemaDepth bounds the recursion of synthValue.
const maxSchemaDepth = 16

func synthValue(schema map[string]any, depth int) any {
	if depth > maxSchemaDepth {
		return nil
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	if types, ok := schema["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return "stub"
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "null":
		return nil
	}
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok {
			out[name] = synthValue(ps, depth+1)
		}
	}
	return out
}
