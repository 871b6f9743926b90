package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// SchemaVersion is the version of the JSON document's schema
// (docs/report.schema.json). It changes when a field is removed, renamed or
// changes meaning; fields and enum values may be added within a version.
const SchemaVersion = 1

// Document is the JSON report of one run: --format json prints it on
// stdout, as one document, for every outcome. Every key is always present;
// null stands for "does not apply" or "not known".
type Document struct {
	SchemaVersion int                   `json:"schema_version"`
	Tool          Tool                  `json:"tool"`
	Command       string                `json:"command"`
	Status        runner.GauntletStatus `json:"status"`
	Message       string                `json:"message"`
	// Error details an error or a refusal (lock_exists, retry limit,
	// configuration and command-line errors).
	Error    *string `json:"error"`
	ExitCode int     `json:"exit_code"`
	// ProjectRoot is null when no project was found.
	ProjectRoot *string `json:"project_root"`
	// BaseBranch is null before the configuration was read.
	BaseBranch *string `json:"base_branch"`
	// Run is N of the run's log files: null when no gate ran.
	Run          *int `json:"run"`
	Verification bool `json:"verification"`
	// ChangedFiles is null when the run ended before listing changes.
	ChangedFiles *int `json:"changed_files"`
	// ConsoleLog is the absolute path of the run's console log.
	ConsoleLog *string `json:"console_log"`
	Totals     Totals  `json:"totals"`
	Gates      []Gate  `json:"gates"`
}

// Tool names and versions the program.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Totals are the counts of the console's summary.
type Totals struct {
	// Gates ran; Failed of them failed or erred; Cached of them passed
	// from the result cache without running.
	Gates  int `json:"gates"`
	Failed int `json:"failed"`
	Cached int `json:"cached"`
	// Fixed counts violations and checks fixed in this run, Skipped the
	// violations the agent skipped.
	Fixed   int `json:"fixed"`
	Skipped int `json:"skipped"`
	// PreExisting counts the checks that failed as they do on the base
	// branch (status pre_existing): not in Failed.
	PreExisting int `json:"pre_existing"`
}

// Gate is one gate of the run.
type Gate struct {
	ID               string            `json:"id"`
	Kind             string            `json:"kind"`
	Name             string            `json:"name"`
	EntryPoint       string            `json:"entry_point"`
	WorkingDirectory string            `json:"working_directory"`
	File             string            `json:"file"`
	Status           runner.GateStatus `json:"status"`
	Message          string            `json:"message"`
	DurationMS       int64             `json:"duration_ms"`
	// Log is a check's log (reviews have one per slot).
	Log *string `json:"log"`
	// ExitCode is a check command's exit code, null when it did not exit
	// on its own (timeout, signal, not started) and for reviews.
	ExitCode *int `json:"exit_code"`
	TimedOut bool `json:"timed_out"`
	// TimeoutSeconds is the gate's configured timeout.
	TimeoutSeconds *float64    `json:"timeout_seconds"`
	Infrastructure bool        `json:"infrastructure"`
	Slots          []Slot      `json:"slots"`
	Violations     []Violation `json:"violations"`
	// Baseline is the comparison of a failed check (baseline: true) with
	// the same check on the base commit; null when it was not made.
	Baseline *Baseline `json:"baseline"`
	// Cached is set when the gate did not run: the result cache held the
	// proof that it passed on exactly this input.
	Cached *Cached `json:"cached"`
	// Findings are what a check's output reported (diagnostics, tests,
	// error lines), each marked new or unchanged when the base was asked;
	// empty when the output was not read.
	Findings []findings.Finding `json:"findings"`
}

// Baseline is what the base commit showed for a failed check.
type Baseline struct {
	// Commit is the base commit, null when none was found.
	Commit *string `json:"commit"`
	// PreExisting is true when the base fails the same way.
	PreExisting bool `json:"pre_existing"`
	// Reason says why, or why the base could not be asked.
	Reason string `json:"reason"`
	// NewLines are error lines the base does not print (normalised, a few).
	NewLines []string `json:"new_lines"`
}

// Cached names the earlier run that proved a cached pass.
type Cached struct {
	// Run is that run's number, RecordedAt when it recorded the pass.
	Run        int    `json:"run"`
	RecordedAt string `json:"recorded_at"`
	// ProjectRoot is that run's project root (its worktree), ConsoleLog
	// its console log as it left it.
	ProjectRoot string  `json:"project_root"`
	ConsoleLog  *string `json:"console_log"`
}

// Slot is one review slot: one reviewer's run.
type Slot struct {
	Adapter    string            `json:"adapter"`
	Index      int               `json:"index"`
	Status     runner.GateStatus `json:"status"`
	Message    string            `json:"message"`
	DurationMS int64             `json:"duration_ms"`
	Log        *string           `json:"log"`
	// ReviewJSON is the slot's violations file, the one the agent edits.
	ReviewJSON *string `json:"review_json"`
	TimedOut   bool    `json:"timed_out"`
}

// Violation is one review finding with where it stands after the run.
type Violation struct {
	// ID is the short stable id `agent-gauntlet update-review` takes.
	ID       string                 `json:"id"`
	File     string                 `json:"file"`
	Line     *int                   `json:"line"`
	Issue    string                 `json:"issue"`
	Fix      *string                `json:"fix"`
	Priority string                 `json:"priority"`
	Status   runner.ViolationStatus `json:"status"`
	// Result is the agent's note on a fixed or skipped violation.
	Result  *string `json:"result"`
	Adapter string  `json:"adapter"`
	Slot    int     `json:"slot"`
}

// NewDocument describes r.
func NewDocument(r Run) Document {
	res := r.Result
	d := Document{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: ToolName, Version: r.Version},
		Command:       r.Command,
		Status:        res.Status,
		Message:       res.Message,
		Error:         optString(res.ErrorMessage),
		ExitCode:      r.ExitCode,
		ProjectRoot:   optString(res.Root),
		BaseBranch:    optString(res.Base),
		Verification:  res.Verification,
		ConsoleLog:    optString(res.ConsoleLogPath),
		Totals:        Totals{Gates: res.GatesRun, Failed: res.GatesFailed, Cached: res.GatesCached, Fixed: res.Fixed, Skipped: res.Skipped, PreExisting: res.PreExisting},
		Gates:         []Gate{},
	}
	if res.RunNumber > 0 {
		d.Run = &res.RunNumber
	}
	if res.ChangesListed {
		d.ChangedFiles = &res.ChangedFiles
	}
	for _, g := range res.Gates {
		d.Gates = append(d.Gates, newGate(g))
	}
	return d
}

// newGate describes one gate.
func newGate(g runner.GateResult) Gate {
	out := Gate{
		ID: g.JobID, Kind: g.Kind, Name: g.Gate, EntryPoint: g.EntryPoint, WorkingDirectory: g.WorkingDir, File: g.File,
		Status: g.Status, Message: g.Message, DurationMS: g.Duration.Milliseconds(), Log: optString(g.LogPath),
		TimedOut: g.TimedOut, Infrastructure: g.Infrastructure, Slots: []Slot{}, Violations: []Violation{},
		Findings: []findings.Finding{},
	}
	if fr := gateFindings(g); fr != nil {
		out.Findings = append(out.Findings, fr.Findings...)
	}
	if g.Exited {
		code := g.ExitCode
		out.ExitCode = &code
	}
	if c := g.Cached; c != nil {
		out.Cached = &Cached{Run: c.Run, RecordedAt: c.At.UTC().Format(time.RFC3339), ProjectRoot: c.Root, ConsoleLog: optString(c.ConsoleLog)}
	}
	if g.Timeout > 0 {
		secs := g.Timeout.Seconds()
		out.TimeoutSeconds = &secs
	}
	if b := g.Baseline; b != nil {
		out.Baseline = &Baseline{Commit: optString(b.Commit), PreExisting: b.PreExisting, Reason: b.Reason,
			NewLines: append([]string{}, b.NewLines...)}
	}
	for _, s := range g.Slots {
		out.Slots = append(out.Slots, Slot{
			Adapter: s.Adapter, Index: s.Index, Status: s.Status, Message: s.Message, DurationMS: s.Duration.Milliseconds(),
			Log: optString(s.LogPath), ReviewJSON: optString(s.JSONPath), TimedOut: s.TimedOut,
		})
		for _, v := range s.Violations {
			out.Violations = append(out.Violations, newViolation(v, s))
		}
	}
	return out
}

// newViolation describes one violation of slot s.
func newViolation(v runner.Violation, s runner.SlotResult) Violation {
	out := Violation{ID: v.ID, File: v.File, Issue: v.Issue, Fix: optString(v.Fix), Priority: v.Priority, Status: v.Status,
		Result: optString(v.Result), Adapter: s.Adapter, Slot: s.Index}
	if v.Line > 0 {
		line := v.Line
		out.Line = &line
	}
	return out
}

// optString is s, or nil when it is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WriteJSON writes r's document to w: one JSON document, indented, with a
// final newline.
func WriteJSON(w io.Writer, r Run) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(NewDocument(r)); err != nil {
		return fmt.Errorf("encode the JSON report: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write the JSON report: %w", err)
	}
	return nil
}
