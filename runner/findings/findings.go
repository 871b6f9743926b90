package findings

import (
	"fmt"
	"strings"
)

// Kind tells a diagnostic from a test result and from a line of text
// output no parser understood.
type Kind string

// The kinds of finding.
const (
	// KindDiagnostic is a message about a place in the code (a compiler
	// error, a linter warning).
	KindDiagnostic Kind = "diagnostic"
	// KindTest is the result of one test case.
	KindTest Kind = "test"
	// KindLine is an error line of output no parser understood.
	KindLine Kind = "line"
)

// Severity is how bad a diagnostic is.
type Severity string

// Severities, most severe first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Status is a test's outcome.
type Status string

// Test outcomes.
const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped"
)

// Baseline says how a finding compares with the base commit.
type Baseline string

// Baseline states (those of SARIF's baselineState that apply).
const (
	// BaselineNone: not compared (the check has no baseline).
	BaselineNone Baseline = ""
	// BaselineNew: the change brought it.
	BaselineNew Baseline = "new"
	// BaselineUnchanged: the base has it too.
	BaselineUnchanged Baseline = "unchanged"
)

// Finding is one diagnostic, test result or error line.
type Finding struct {
	Kind Kind `json:"kind"`
	// File is where it is: slash-separated and relative to the project
	// root when it lies inside, as printed otherwise ("" when the tool
	// gave no file). Line and Column are 1-based, 0 when not given.
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Severity is a diagnostic's or line's severity; a failed test is an
	// error, a passed or skipped one a note.
	Severity Severity `json:"severity"`
	// Rule is a diagnostic's rule or code ("SA4006", "no-unused-vars",
	// "return-value"), "" when the tool names none.
	Rule string `json:"rule,omitempty"`
	// Suite and Test identify a test: its package, file or class, and
	// its name (subtests as Parent/child).
	Suite string `json:"suite,omitempty"`
	Test  string `json:"test,omitempty"`
	// Status is a test's outcome.
	Status Status `json:"status,omitempty"`
	// Message is the whole message, every line of it: a diagnostic's
	// text, a failed test's failure message and output.
	Message string `json:"message,omitempty"`
	// Baseline is how it compares with the base commit.
	Baseline Baseline `json:"baseline,omitempty"`
}

// Failing reports whether f is something that fails the check: a failed
// test, an error diagnostic, an error line.
func (f Finding) Failing() bool {
	if f.Kind == KindTest {
		return f.Status == StatusFailed
	}
	return f.Severity == SeverityError
}

// Location is f's file:line:column as far as known ("" without a file).
func (f Finding) Location() string {
	switch {
	case f.File == "":
		return ""
	case f.Line <= 0:
		return f.File
	case f.Column <= 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}

// Title is f in one line for people: a test's suite and name, a
// diagnostic's location, rule and first message line.
func (f Finding) Title() string {
	first, _, _ := strings.Cut(f.Message, "\n")
	switch f.Kind {
	case KindTest:
		name := f.Test
		if f.Suite != "" {
			name = f.Suite + " " + f.Test
		}
		return fmt.Sprintf("test %s %s", name, f.Status)
	case KindDiagnostic:
		var b strings.Builder
		if loc := f.Location(); loc != "" {
			b.WriteString(loc + ": ")
		}
		b.WriteString(string(f.Severity))
		if f.Rule != "" {
			b.WriteString(" [" + f.Rule + "]")
		}
		b.WriteString(": " + first)
		return b.String()
	}
	return first
}

// Stop is a unit whose tests did not all run: a failure stopped it (a
// panic ended a Go test binary, pytest -x stopped at its first failure,
// cargo test or make stopped at the first failing target). Tests it kept
// from running are unverified.
type Stop struct {
	// Unit is what stopped: a Go package, "pytest", "cargo", "make".
	Unit string `json:"unit"`
	// Reason says why, in a few words.
	Reason string `json:"reason"`
	// Tool is the format whose output showed the stop (FormatGoTest,
	// FormatPytest, FormatJest, FormatCargoTest, "make", "maven",
	// "gradle"), ToolChain for a command whose failed part kept its later
	// parts from running, ToolSignal when only a signal's exit code tells.
	// Only a rerun of that tool can run what it kept from running.
	Tool string `json:"tool,omitempty"`
	// Kind is how it stopped.
	Kind StopKind `json:"kind,omitempty"`
	// Rest is, for a chain, the command of the parts that never ran.
	Rest string `json:"rest,omitempty"`
	// Failed is, for a chain, the part that failed and stopped it.
	Failed string `json:"failed,omitempty"`
}

// StopKind is how a run stopped.
type StopKind string

// The kinds of stop.
const (
	// StopFailFast: the tool stopped at its first failure on purpose
	// (go test -failfast, pytest -x, jest --bail, cargo test without
	// --no-fail-fast, make without -k): telling it to go on runs the rest.
	StopFailFast StopKind = "fail-fast"
	// StopCrash: the tool's run ended abruptly (a panic, a timeout, an
	// exit, a signal): the rest runs only without the test that ended it.
	StopCrash StopKind = "crash"
	// StopUnbuilt: it did not build; nothing can run.
	StopUnbuilt StopKind = "unbuilt"
	// StopVet: go test's vet step failed, so the package's tests never
	// ran; go test -vet=off runs them.
	StopVet StopKind = "vet"
	// StopChain: an earlier part of the command failed, so the later ones
	// never ran (Rest).
	StopChain StopKind = "chain"
)

// The Tool of stops no format of this package reads.
const (
	ToolChain  = "chain"
	ToolSignal = "signal"
)

// Result is what one run of a check reported.
type Result struct {
	// Format is the format that read it (a Formats name).
	Format string `json:"format"`
	// Findings in the order the tool reported them.
	Findings []Finding `json:"findings,omitempty"`
	// Stops are the units a failure kept from running all their tests.
	Stops []Stop `json:"stops,omitempty"`
	// Truncated is true when the output held more than MaxFindings
	// findings, MaxBytes bytes or MaxLines lines: the rest was not read,
	// and the result cannot be compared. Cut says which bound stopped the
	// reading first.
	Truncated bool   `json:"truncated,omitempty"`
	Cut       string `json:"cut,omitempty"`
	// Problem says why a structured source could not be read (a JUnit
	// file missing or not written by this run, invalid XML); "" when it
	// was read.
	Problem string `json:"problem,omitempty"`
}

// diagPlace is a diagnostic as a tool reports it: the same one printed
// twice (go test's vet step prints a package's problems for each of its
// test binaries) is one finding.
type diagPlace struct {
	file, rule, message string
	line, column        int
	severity            Severity
}

// Failing returns the findings that fail the check.
func (r Result) Failing() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Failing() {
			out = append(out, f)
		}
	}
	return out
}

// anyFailing reports whether a finding fails the check.
func (r Result) anyFailing() bool {
	_, ok := r.FirstError()
	return ok
}

// FirstError is the first failing finding (errors before warnings), and
// whether there is one.
func (r Result) FirstError() (Finding, bool) {
	for _, f := range r.Findings {
		if f.Failing() {
			return f, true
		}
	}
	return Finding{}, false
}

// LogHeader opens the list of findings a failed check's log ends with
// (before its result line): what the gauntlet read, not what the command
// printed.
const LogHeader = "--- Findings ---"

// Bounds of a result: whatever a check prints, reading it costs at most
// this much.
const (
	// MaxFindings is the most findings a result holds.
	MaxFindings = 20_000
	// MaxBytes is how much output is read.
	MaxBytes = 32 << 20
	// MaxLines is how many lines of output are read (what a line costs
	// beyond its bytes is bounded too: a million empty lines are as much
	// to hold as 16 MB).
	MaxLines = 1 << 20
	// MaxLineBytes is how much of one output line is read (the rest is
	// dropped: a longer line is data, not a message).
	MaxLineBytes = 16 << 10
	// MaxMessageBytes bounds one finding's message.
	MaxMessageBytes = 16 << 10
)

// dedupDiagnostics keeps one of each diagnostic reported more than once
// at the same place (see diagPlace).
func (r *Result) dedupDiagnostics() {
	seen := map[diagPlace]bool{}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if f.Kind == KindDiagnostic && f.Line > 0 {
			k := diagPlace{f.File, f.Rule, f.Message, f.Line, f.Column, f.Severity}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		kept = append(kept, f)
	}
	r.Findings = kept
}

// bounds are the bounds Parse applies: MaxFindings, MaxLines and MaxBytes,
// lowered only by a test (setBounds), so that a race-instrumented run
// reads an output at a bound in a second rather than minutes; the code
// at a bound is the same whatever its value. Result.Cut names the
// constants.
var bounds = struct {
	findings, lines int
	bytes           int64
}{MaxFindings, MaxLines, MaxBytes}

// Why a result was cut short (Result.Cut).
var (
	cutFindings = fmt.Sprintf("more than %d findings: the rest of the output was not read", MaxFindings)
	cutBytes    = fmt.Sprintf("more than %d MB of output: the rest was not read", MaxBytes>>20)
	cutLines    = fmt.Sprintf("more than %d lines of output: the rest were not read", MaxLines)
)

// cut marks the result cut short for why, unless it already is.
func (r *Result) cut(why string) {
	if !r.Truncated || r.Cut == "" {
		r.Truncated, r.Cut = true, why
	}
}

// add appends f unless the result is full; false when it is: then the
// result is cut short (Cut), and parsers read no further.
func (r *Result) add(f Finding) bool {
	if len(r.Findings) >= bounds.findings {
		r.cut(cutFindings)
		return false
	}
	if len(f.Message) > MaxMessageBytes {
		f.Message = cutUTF8(f.Message, MaxMessageBytes) + "\n…"
	}
	r.Findings = append(r.Findings, f)
	return true
}

// cutUTF8 cuts s to at most n bytes at a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
