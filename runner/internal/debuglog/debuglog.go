// Package debuglog appends the events of runs, cleans and stop hooks to a
// log directory's .debug.log, one line each, when the project or the
// global configuration enables it.
package debuglog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// The events of the debug log: a command and its flags, the start and end
// of a run, each gate's result, an archive of the logs, a stop hook's
// decision.
const (
	EventCommand    = "COMMAND"
	EventRunStart   = "RUN_START"
	EventGateResult = "GATE_RESULT"
	EventRunEnd     = "RUN_END"
	EventClean      = "CLEAN"
	EventStopHook   = "STOP_HOOK"
	// EventCache notes what the result cache did not do, and why.
	EventCache = "CACHE"
)

// Log appends one line per event to <log_dir>/.debug.log:
// `[<RFC 3339 time>] <EVENT> <fields>`. Before each write a file of at
// least max_size_mb is renamed to .debug.log.1 (replacing the old backup).
// Write errors are ignored: the debug log never breaks a run. A nil
// *Log (debug logging disabled) ignores every call.
type Log struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	now      func() time.Time
}

// Open returns the debug log of logDir, or nil when settings disable it.
// now may be nil (time.Now).
func Open(logDir string, settings config.DebugLog, now func() time.Time) *Log {
	if !settings.Enabled {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	maxBytes := int64(settings.MaxSizeMB * (1 << 20))
	if maxBytes <= 0 {
		maxBytes = config.DefaultDebugLogMaxSizeMB << 20
	}
	return &Log{path: filepath.Join(logDir, logdir.DebugLogFile), maxBytes: maxBytes, now: now}
}

// Event appends `[time] <event> <fields>`.
func (d *Log) Event(event, fields string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, err := os.Lstat(d.path); err == nil && st.Mode().IsRegular() && st.Size() >= d.maxBytes {
		// The rename replaces the old backup only when the gauntlet wrote
		// both: anything else in their place is not its to move or delete.
		_ = logdir.Rotate(filepath.Dir(d.path), logdir.DebugLogFile, logdir.DebugLogBackupFile)
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
		return
	}
	f, err := logdir.OpenLog(d.path, false)
	if err != nil {
		return
	}
	line := fmt.Sprintf("[%s] %s", d.now().UTC().Format(time.RFC3339Nano), event)
	if fields != "" {
		line += " " + fields
	}
	_, _ = f.WriteString(strings.ReplaceAll(line, "\n", " ") + "\n")
	_ = f.Close()
	_ = logdir.Note(d.path, false)
}

// StopHook appends `STOP_HOOK decision=<allow|block> reason=<reason>`;
// reason is the status, or `error: <message>`.
func (d *Log) StopHook(decision, reason string) {
	d.Event(EventStopHook, fmt.Sprintf("decision=%s reason=%s", decision, reason))
}

// Clean appends `CLEAN type=<auto|manual> reason=<reason>`.
func (d *Log) Clean(kind, reason string) {
	d.Event(EventClean, fmt.Sprintf("type=%s reason=%s", kind, reason))
}
