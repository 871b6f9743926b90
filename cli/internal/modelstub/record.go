package modelstub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// DefaultReply is the text answered once the reply queue is empty.
const DefaultReply = "All done."

// maxBody bounds the request bodies read by the handlers.
const maxBody = 16 << 20

// Entry is one recorded request, written as one JSON line.
type Entry struct {
	// N numbers the requests of one server from 1.
	N int `json:"n"`
	// API is the handler that answered: "anthropic", "openai" or "gemini".
	API string `json:"api"`
	// Method, Path and Query describe the HTTP request.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Turn is true for a model call answered from the reply queue.
	Turn bool `json:"turn"`
	// Reply is the text answered to a turn.
	Reply string `json:"reply,omitempty"`
	// Body is the request body: raw JSON when it parses, else a JSON string.
	Body json.RawMessage `json:"body,omitempty"`
}

// Recorder appends one Entry per request to a writer; it is safe for
// concurrent use.
type Recorder struct {
	mu sync.Mutex
	w  io.Writer
	n  int
}

// NewRecorder returns a Recorder writing JSON lines to w (nil: nowhere).
func NewRecorder(w io.Writer) *Recorder {
	if w == nil {
		w = io.Discard
	}
	return &Recorder{w: w}
}

// Record numbers e, writes it as one JSON line and returns its number.
func (r *Recorder) Record(e Entry) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	e.N = r.n
	line, err := json.Marshal(e)
	if err != nil {
		return e.N, fmt.Errorf("encode request %d: %w", e.N, err)
	}
	if _, err := r.w.Write(append(line, '\n')); err != nil {
		return e.N, fmt.Errorf("write request %d: %w", e.N, err)
	}
	return e.N, nil
}

// Replies is the queue of canned model answers; it is safe for concurrent use.
type Replies struct {
	mu    sync.Mutex
	queue []string
	def   string
}

// NewReplies returns a queue answering texts in order, then def forever
// (DefaultReply when def is empty).
func NewReplies(def string, texts ...string) *Replies {
	if def == "" {
		def = DefaultReply
	}
	return &Replies{queue: append([]string(nil), texts...), def: def}
}

// Next pops the next answer.
func (q *Replies) Next() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return q.def
	}
	t := q.queue[0]
	q.queue = q.queue[1:]
	return t
}

// readBody reads a bounded request body and returns it as JSON for an
// Entry: the body itself when it is JSON, else a JSON string.
func readBody(r *http.Request) (json.RawMessage, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read body of %s %s: %w", r.Method, r.URL.Path, err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	if json.Valid(b) {
		return json.RawMessage(b), nil
	}
	s, _ := json.Marshal(string(b))
	return json.RawMessage(s), nil
}

// record logs the request. A failed write is dropped: the answer matters more
// to the client, and a missing line fails the scenario that looks for it.
func record(rec *Recorder, api string, r *http.Request, raw json.RawMessage, turn bool, reply string) {
	_, _ = rec.Record(Entry{
		API: api, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Turn: turn, Reply: reply, Body: raw,
	})
}

// writeJSON answers v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes Server-Sent Events and flushes after each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// done ends an OpenAI style stream: data: [DONE].
func (s *sse) done() {
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if s.f != nil {
		s.f.Flush()
	}
}

// event writes one event; an empty name writes a data-only event.
func (s *sse) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b = []byte(`{}`)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}
