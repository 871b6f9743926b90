// Package console writes what a run shows the user: to the terminal (unless
// silent) and, ANSI codes stripped, to the run's console.N.log. Lines written
// before the log is opened are kept and written to it when it opens, so the
// log holds the whole run, while a run that ends before any gate starts
// leaves no console log behind.
package console

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// ansiRE matches the ANSI color sequences stripped from the console log.
var ansiRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`) })

// StripANSI returns p without its ANSI color sequences (p itself when it
// has none).
func StripANSI(p []byte) []byte {
	if bytes.IndexByte(p, 0x1b) < 0 {
		return p
	}
	return ansiRE().ReplaceAll(p, nil)
}

// maxPending bounds what is kept before the log is opened.
const maxPending = 1 << 20

// Console is safe for concurrent use; each Write reaches both sinks whole.
type Console struct {
	mu      sync.Mutex
	term    io.Writer
	file    *os.File
	path    string
	pending bytes.Buffer
	werr    error
	// pendingDir holds the log until Close moves it to path (Open).
	pendingDir string
}

// New returns a Console writing to term; a nil term (silent) shows nothing.
func New(term io.Writer) *Console { return &Console{term: term} }

// Write sends p to the terminal and to the console log.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.term != nil {
		_, _ = c.term.Write(p)
	}
	clean := StripANSI(p)
	switch {
	case c.file != nil:
		if _, err := c.file.Write(clean); err != nil && c.werr == nil {
			c.werr = fserr.Wrap("write", c.path, err)
		}
	case c.pending.Len()+len(clean) <= maxPending:
		c.pending.Write(clean)
	}
	return len(p), nil
}

// Printf writes one formatted line (a newline is added when missing).
func (c *Console) Printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, _ = c.Write([]byte(s))
}

// Open creates the console log at path (it must not exist) and writes to it
// everything printed so far. The log is written in a fresh directory of
// its own outside the project at root (logdir.MakePending) until Close
// moves it to path
// (logdir.Install), so that no gate reading the work tree reads the run's
// console in progress; where that directory cannot be made, it is written
// at path from the start.
func (c *Console) Open(path, root string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var f *os.File
	var err error
	if _, lerr := os.Lstat(path); lerr == nil {
		return fmt.Errorf("create console log: %s already exists", path)
	}
	if dir, terr := logdir.MakePending(root, "console"); terr == nil {
		if f, err = logdir.OpenPending(dir, filepath.Base(path)); err != nil {
			_ = os.RemoveAll(dir)
		} else {
			c.pendingDir = dir
		}
	} else {
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err != nil {
		return fmt.Errorf("create console log: %w", err)
	}
	if _, err := f.Write(c.pending.Bytes()); err != nil {
		f.Close()
		c.dropPending()
		return fserr.Wrap("write", path, err)
	}
	c.pending.Reset()
	c.file, c.path = f, path
	if c.pendingDir == "" {
		// What it holds now is its first bytes for good: it is only
		// appended to. (The record failing to note it only leaves it in
		// place.)
		_ = logdir.Note(path, false)
	}
	return nil
}

// dropPending removes the directory the log was written in before Close
// moved it (none when it was written in place).
func (c *Console) dropPending() {
	if c.pendingDir != "" {
		_ = os.RemoveAll(c.pendingDir)
		c.pendingDir = ""
	}
}

// Path is the console log's path, "" until Open.
func (c *Console) Path() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.path
}

// Close closes the console log and reports the first write error.
func (c *Console) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	err := c.file.Close()
	if c.pendingDir != "" {
		if ierr := logdir.Install(c.file.Name(), c.path); ierr != nil && err == nil {
			err = ierr
		}
		c.dropPending()
	}
	c.file = nil
	if c.werr != nil {
		return c.werr
	}
	if err != nil {
		return fserr.Wrap("close", c.path, err)
	}
	return nil
}

// Gate line labels (two spaces after PASS and FAIL align the ids).
const (
	LabelStart = "[START]"
	LabelPass  = "[PASS] "
	LabelFail  = "[FAIL] "
	LabelError = "[ERROR]"
	// LabelNotRun marks a gate the run never started (gate.StatusNotRun).
	LabelNotRun = "[SKIP] "
	// LabelPreExisting marks a check that fails as it did on the base
	// branch: not caused by the change, never blocking.
	LabelPreExisting = "[PRE-EXISTING]"
)

// indent starts the Log:/Review: line under a gate line.
const indent = "      "

func label(s gate.Status) string {
	switch s {
	case gate.StatusPass, gate.StatusSkippedPriorPass:
		return LabelPass
	case gate.StatusFail:
		return LabelFail
	case gate.StatusNotRun:
		return LabelNotRun
	case gate.StatusPreExisting:
		return LabelPreExisting
	}
	return LabelError
}

// secs formats a duration as seconds with two decimals.
func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// Age words how long ago a cached result was proved: "12s", "4m", "3h",
// "2d".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// CachedProof is the line that points a cached result at the run that
// proved it, and at that run's console log while it can be read there.
// The cache outlives the logs: a later archive removes that log, or puts
// a later run's log under its name (one last written after the result was
// recorded), and then the line says so rather than name a file that does
// not hold the proof.
func CachedProof(c gate.Cached) string {
	verdict := "passed"
	if c.PreExisting {
		verdict = "failed as on the base branch (pre-existing)"
	}
	s := fmt.Sprintf("Cached: %s in run %d at %s", verdict, c.Run, c.At.Local().Format(time.RFC3339))
	if c.Root != "" {
		s += " in " + c.Root
	}
	if c.ConsoleLog != "" {
		if st, err := os.Stat(c.ConsoleLog); err == nil && !st.ModTime().After(c.At) {
			s += " (" + c.ConsoleLog + ")"
		} else {
			s += fmt.Sprintf(" (its console log, %s, is gone: a later archive of the logs removed or replaced it; the result cache keeps the record)", filepath.Base(c.ConsoleLog))
		}
	}
	return s
}

// Start prints `[START] <jobId>`.
func (c *Console) Start(jobID string) { c.Printf("%s %s", LabelStart, Text(jobID)) }

// Result prints the outcome of one job: `[PASS]  <id> (<sec>s)` (`[PASS]
// <id> (cached, <age>)` and the proving run for a cached pass), or
// `[FAIL]  <id> (<sec>s) - <message>` / `[ERROR] ...` followed by
// `      Log: <path>`, or `[SKIP]  <id> - not run: <why>`; a review prints one such line per slot, labelled
// `(<adapter>@<index>)`, with `      Review: <json>` for a failing slot.
func (c *Console) Result(r gate.Result) {
	var b strings.Builder
	id := Text(r.JobID)
	if r.Cached != nil && r.Status == gate.StatusPass {
		// One line for the whole gate, a review's slots included, and the
		// run that proved it.
		fmt.Fprintf(&b, "%s %s (cached, %s)\n%s%s\n", label(r.Status), id, Age(r.Cached.Age), indent, Text(CachedProof(*r.Cached)))
		_, _ = c.Write([]byte(b.String()))
		return
	}
	if r.Cached != nil && r.Status == gate.StatusPreExisting {
		fmt.Fprintf(&b, "%s %s (cached, %s) - %s\n%s%s\n", label(r.Status), id, Age(r.Cached.Age), Text(r.Message), indent, Text(CachedProof(*r.Cached)))
		if r.LogPath != "" {
			fmt.Fprintf(&b, "%sLog: %s\n", indent, Text(r.LogPath))
		}
		_, _ = c.Write([]byte(b.String()))
		return
	}
	if len(r.Slots) == 0 {
		switch r.Status {
		case gate.StatusNotRun:
			// Never started: no time, no log.
			fmt.Fprintf(&b, "%s %s - %s\n", label(r.Status), id, Text(r.Message))
		case gate.StatusPass:
			fmt.Fprintf(&b, "%s %s (%s)\n", label(r.Status), id, secs(r.Duration))
		default:
			fmt.Fprintf(&b, "%s %s (%s) - %s\n", label(r.Status), id, secs(r.Duration), Text(r.Message))
			if r.LogPath != "" {
				fmt.Fprintf(&b, "%sLog: %s\n", indent, Text(r.LogPath))
			}
		}
	}
	for _, s := range r.Slots {
		fmt.Fprintf(&b, "%s %s (%s@%d) (%s) - %s\n", label(s.Status), id, Text(s.Adapter), s.Index, secs(r.Duration), Text(s.Message))
		if s.Status == gate.StatusPass || s.Status == gate.StatusSkippedPriorPass {
			continue
		}
		switch {
		case s.JSONPath != "":
			fmt.Fprintf(&b, "%sReview: %s\n", indent, Text(s.JSONPath))
		case s.LogPath != "":
			fmt.Fprintf(&b, "%sLog: %s\n", indent, Text(s.LogPath))
		}
	}
	_, _ = c.Write([]byte(b.String()))
}
