package stophook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// inputReader collects stdin in the background, so that the hook can stop
// waiting for a writer that never closes it.
type inputReader struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan error // receives the end of reading: nil (EOF or complete object) or an error
}

// TooLargeError is readInput's error for an input over its limit.
type TooLargeError struct{ Limit int64 }

// Error says how large an input may be.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("The input is larger than %s (%d bytes); it was not read.", sizeText(e.Limit), e.Limit)
}

// NoInputError is readInput's error when nothing arrived before the
// timeout, the writer keeping stdin open.
type NoInputError struct{ Timeout time.Duration }

// Error says how long the hook waited.
func (e *NoInputError) Error() string {
	return fmt.Sprintf("No input arrived on stdin within %s.", e.Timeout)
}

// sizeText is n bytes in MiB when it is a whole number of them.
func sizeText(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readInput reads r to EOF, at most limit bytes and for at most timeout
// (also ending with ctx). A JSON object followed by a newline ends the read
// early, so a writer that never closes stdin costs nothing. On timeout what
// arrived so far is returned: the decoder judges it; nothing at all is a
// *NoInputError. An input over limit is a *TooLargeError.
func readInput(ctx context.Context, r io.Reader, limit int64, timeout time.Duration) ([]byte, error) {
	ir := &inputReader{done: make(chan error, 1)}
	go ir.run(r, limit)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	timedOut := false
	select {
	case err = <-ir.done:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
	}
	ir.mu.Lock()
	defer ir.mu.Unlock()
	data := bytes.Clone(ir.buf.Bytes())
	if err != nil {
		return data, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	if timedOut && len(data) == 0 {
		return nil, &NoInputError{Timeout: timeout}
	}
	return data, nil
}

func (ir *inputReader) run(r io.Reader, limit int64) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		ir.mu.Lock()
		ir.buf.Write(chunk[:n])
		size := int64(ir.buf.Len())
		complete := n > 0 && endsObjectLine(ir.buf.Bytes())
		ir.mu.Unlock()
		switch {
		case err == io.EOF, complete, size > limit:
			ir.done <- nil
			return
		case err != nil:
			ir.done <- fmt.Errorf("read hook input: %w", err)
			return
		}
	}
}

// endsObjectLine reports whether data is a complete JSON object followed by
// a newline, the end of one input from a writer that keeps stdin open.
func endsObjectLine(data []byte) bool {
	if !bytes.HasSuffix(data, []byte("\n")) {
		return false
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{' && t[len(t)-1] == '}' && json.Valid(t)
}

// ReadInput reads a hook's input as the stop hook does: to EOF or the end
// of one JSON object line, at most limit bytes, for at most timeout. The
// session-start hook reads its input this way too.
func ReadInput(ctx context.Context, r io.Reader, limit int64, timeout time.Duration) ([]byte, error) {
	return readInput(ctx, r, limit, timeout)
}
