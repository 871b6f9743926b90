package modelstub

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLogLine bounds one line of a request log.
const maxLogLine = 32 << 20

// ReadLog decodes a request log written by a Recorder.
func ReadLog(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLogLine)
	var out []Entry
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("request log line %d: %w", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read request log: %w", err)
	}
	return out, nil
}

// Summarize writes one line per recorded request, for testscript assertions:
//
//	turn 2 anthropic POST /v1/messages user="...last user text, Go-quoted..." reply="..."
//	call 3 anthropic POST /v1/messages/count_tokens
//
// The user text is the last user message of a turn, as the model saw it.
// A turn whose messages include system-role messages (how Claude Code
// passes a hook's additional context) ends with system="...", their texts.
func Summarize(entries []Entry, w io.Writer) error {
	for _, e := range entries {
		var err error
		if e.Turn {
			system := ""
			if texts := SystemTexts(e.API, e.Body); len(texts) > 0 {
				system = " system=" + strconv.Quote(strings.Join(texts, "\n"))
			}
			_, err = fmt.Fprintf(w, "turn %d %s %s %s user=%s reply=%s%s\n", e.N, e.API, e.Method, e.Path,
				strconv.Quote(LastUserText(e.API, e.Body)), strconv.Quote(e.Reply), system)
		} else {
			_, err = fmt.Fprintf(w, "call %d %s %s %s\n", e.N, e.API, e.Method, e.Path)
		}
		if err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	return nil
}

// LastUserText returns the text of the last user message of a model request
// body, for api "anthropic", "openai" or "gemini" ("" when there is none).
func LastUserText(api string, body json.RawMessage) string {
	texts := UserTexts(api, body)
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}

// UserTexts returns the texts of the user messages of a model request body,
// newest first, for api "anthropic", "openai" or "gemini".
func UserTexts(api string, body json.RawMessage) []string {
	var out []string
	switch api {
	case "anthropic":
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				out = append(out, contentText(req.Messages[i].Content))
			}
		}
	case "openai":
		if texts, ok := chatUserTexts(body); ok {
			return texts
		}
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		var s string
		if json.Unmarshal(req.Input, &s) == nil {
			return []string{s}
		}
		var items []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(req.Input, &items) != nil {
			return nil
		}
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].Role == "user" {
				out = append(out, contentText(items[i].Content))
			}
		}
	case "gemini":
		var req struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		for i := len(req.Contents) - 1; i >= 0; i-- {
			if req.Contents[i].Role == "user" {
				var parts []string
				for _, p := range req.Contents[i].Parts {
					if p.Text != "" {
						parts = append(parts, p.Text)
					}
				}
				out = append(out, strings.Join(parts, "\n"))
			}
		}
	}
	return out
}

// contentText flattens a message content that is either a string or a list
// of blocks carrying "text" (Anthropic text, OpenAI input_text).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// SystemTexts returns the texts of the system-role messages inside the
// messages of an Anthropic request body (not its top-level system prompt),
// in order; none for other APIs.
func SystemTexts(api string, body json.RawMessage) []string {
	if api != "anthropic" {
		return nil
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role == "system" {
			out = append(out, contentText(m.Content))
		}
	}
	return out
}
