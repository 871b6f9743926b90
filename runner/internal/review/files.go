package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// SlotFile is the review JSON file of one slot, in the format the
// TypeScript agent-gauntlet writes (2-space indented), so existing logs and
// the agent's edits ("status": "fixed"/"skipped", "result") keep working.
type SlotFile struct {
	Adapter   string      `json:"adapter"`
	Timestamp string      `json:"timestamp"`
	Status    gate.Status `json:"status"`
	// RawOutput is the adapter's whole stdout ("" for a skipped slot).
	RawOutput  string           `json:"rawOutput"`
	Violations []gate.Violation `json:"violations"`
	// PassIteration is the run in which a skipped_prior_pass slot passed.
	PassIteration int `json:"passIteration,omitempty"`
}

// maxLogRead bounds what is read of one review JSON or legacy review log
// (it holds a reviewer's whole output).
const maxLogRead = 64 << 20

// timestampFormat is ISO 8601 in UTC with milliseconds, as JavaScript's
// toISOString writes it.
const timestampFormat = "2006-01-02T15:04:05.000Z"

// writeSlotFile writes f to path atomically (temporary file and rename).
func writeSlotFile(path string, f SlotFile) error {
	if f.Violations == nil {
		f.Violations = []gate.Violation{}
	}
	if err := atomicfile.WriteJSON(path, f, 0o644); err != nil {
		return err
	}
	_ = logdir.NoteReview(path, HeldKeys(f.Violations)) // the agent edits it; see slotLog.Close
	return nil
}

// HeldKeys are the keys (logdir.EntryKey) of the entries of a review JSON
// file: what the gauntlet told the agent there.
func HeldKeys(entries []gate.Violation) []string {
	out := make([]string, 0, len(entries))
	for _, v := range entries {
		out = append(out, EntryKey(v))
	}
	return out
}

// EntryKey is the key (logdir.EntryKey) of one entry of a review JSON file.
func EntryKey(v gate.Violation) string {
	return logdir.EntryKey(v.ID, v.File, v.Line, v.Issue)
}

// readSlotFile reads a review JSON file; violation lines that are integral
// numbers become ints.
func readSlotFile(path string) (SlotFile, error) {
	data, err := fsread.File(path, maxLogRead)
	if err != nil {
		return SlotFile{}, err // an *fs.PathError naming the file
	}
	var f SlotFile
	if err := json.Unmarshal(data, &f); err != nil {
		return SlotFile{}, fmt.Errorf("parse %s: %w", path, err)
	}
	for i := range f.Violations {
		f.Violations[i].Line = normalizeLine(f.Violations[i].Line)
	}
	return f, nil
}

// normalizeLine turns an integral JSON number into an int.
func normalizeLine(v any) any {
	if x, ok := v.(float64); ok {
		if n, ok := parse.LineNumber(x); ok {
			return n
		}
	}
	return v
}

// slotLog is one slot's log file. Every line starts with `[<ISO time>] `,
// also the lines of the adapter's streamed output. Safe for concurrent use.
type slotLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	now     func() time.Time
	midLine bool
	err     error
}

// createSlotLog creates the log at path: in pending (gate.Env.Pending),
// out of the work tree a check running meanwhile may read, when not "",
// moved to path by Close (what is there now must be the gauntlet's to
// write over, logdir.Vacant); else at path (truncating it).
func createSlotLog(path, pending string, now func() time.Time) (*slotLog, error) {
	var f *os.File
	var err error
	if pending != "" {
		if err = logdir.Vacant(path); err == nil {
			f, err = logdir.OpenPending(pending, filepath.Base(path))
		}
	} else {
		f, err = logdir.OpenLog(path, true)
	}
	if err != nil {
		return nil, fmt.Errorf("create review log: %w", err)
	}
	return &slotLog{f: f, path: path, now: now}, nil
}

// Write writes p, stamping the start of every line.
func (l *slotLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	var b bytes.Buffer
	stamp := "[" + l.now().UTC().Format(timestampFormat) + "] "
	for len(p) > 0 {
		if !l.midLine {
			b.WriteString(stamp)
			l.midLine = true
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.Write(p)
			break
		}
		b.Write(p[:i+1])
		p = p[i+1:]
		l.midLine = false
	}
	if _, err := l.f.Write(b.Bytes()); err != nil && l.err == nil {
		l.err = fserr.Wrap("write", l.path, err)
	}
	return n, nil
}

// Printf writes one or more whole lines; an unterminated streamed line is
// ended first.
func (l *slotLog) Printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	l.mu.Lock()
	if l.midLine {
		_, _ = l.f.Write([]byte("\n"))
		l.midLine = false
	}
	l.mu.Unlock()
	_, _ = l.Write([]byte(s))
}

// Close closes the file and reports the first error.
func (l *slotLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = fserr.Wrap("close", l.path, err)
	}
	if l.f.Name() != l.path {
		if err := logdir.Install(l.f.Name(), l.path); err != nil && l.err == nil {
			l.err = err
		}
		return l.err
	}
	// Now with its content, for archiving to know it (the record failing
	// to note it only leaves it in place).
	_ = logdir.Note(l.path, false)
	return l.err
}
