package report

import (
	"bytes"
	"encoding/xml"
	"fmt"

	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// Bounds of the log tail a failing test case carries.
const (
	tailLines = 50
	tailBytes = 16 << 10
)

// junitOutcome is what a gate status becomes in JUnit.
type junitOutcome int

const (
	junitPassed junitOutcome = iota
	junitFailure
	junitError
	junitSkipped
)

// junitOutcomes maps every gate status to its JUnit outcome: a fail is a
// failure, an error (the gate could not judge the change) an error, a gate
// never started (fail_fast) skipped, and so is a check failing as it does
// on the base branch (pre_existing: not this change's to judge; its message
// says so and its output is kept). A new gate status needs an entry
// (TestOutcomesCoverStatuses).
var junitOutcomes = map[runner.GateStatus]junitOutcome{
	runner.GatePass:        junitPassed,
	runner.GateFail:        junitFailure,
	runner.GateError:       junitError,
	runner.GateNotRun:      junitSkipped,
	runner.GatePreExisting: junitSkipped,
}

// The JUnit XML elements, in the de-facto schema of Ant, Maven Surefire and
// Jenkins: <testsuites> around one <testsuite> per run, one <testcase> per
// gate.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Skipped   *junitMessage `xml:"skipped"`
		Error     *junitMessage `xml:"error"`
		Failure   *junitMessage `xml:"failure"`
		SystemOut *junitText    `xml:"system-out"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",cdata"`
	}
	// junitText is an element's text, as CDATA so that logs keep their
	// lines.
	junitText struct {
		Text string `xml:",cdata"`
	}
)

// JUnit renders r as JUnit XML: one test case per gate, named by its job
// id; a failing gate's case carries the gate's message and the tail of its
// log (checks) or its open violations (reviews). When the command failed
// and no gate says why (no gate ran: retry limit, lock, configuration
// error; or the run was interrupted), one more case, named after the
// command, carries the run's error: the file has a failure or an error
// exactly when the command exited non-zero.
func JUnit(r Run, now time.Time) ([]byte, error) {
	res := r.Result
	suite := junitSuite{
		Name:      ToolName + " " + r.Command,
		Timestamp: now.UTC().Format("2006-01-02T15:04:05"),
		Properties: []junitProperty{
			{"status", string(res.Status)},
			{"exit_code", strconv.Itoa(r.ExitCode)},
			{"base_branch", res.Base},
			{"console_log", res.ConsoleLogPath},
		},
		Cases: []junitCase{},
	}
	var total time.Duration
	for _, g := range res.Gates {
		total += g.Duration
		suite.Cases = append(suite.Cases, r.gateCase(g))
		suite.Cases = append(suite.Cases, r.testCases(g, gateFindings(g))...)
	}
	for _, c := range suite.Cases {
		suite.count(c)
	}
	if r.failed() && suite.Failures+suite.Errors == 0 {
		c := junitCase{Name: ToolName + " " + r.Command, Classname: ToolName, Time: seconds(0),
			Error: &junitMessage{Message: res.Message, Type: string(res.Status), Text: xmlText(res.ErrorMessage)}}
		suite.Cases = append(suite.Cases, c)
		suite.count(c)
	}
	suite.Time = seconds(total)
	doc := junitSuites{Name: ToolName, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode the JUnit report: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// count adds c to the suite's counts.
func (s *junitSuite) count(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
}

// gateCase is the test case of one gate; its file is relative to the
// repository's top level.
func (r Run) gateCase(g runner.GateResult) junitCase {
	c := junitCase{Name: g.JobID, Classname: ToolName + "." + g.Kind, Time: seconds(g.Duration), File: r.repoPath(g.File)}
	detail := xmlText(gateDetail(g))
	msg := &junitMessage{Message: g.Message, Type: g.Kind + " " + string(g.Status), Text: detail}
	switch junitOutcomes[g.Status] {
	case junitFailure:
		c.Failure = msg
	case junitError:
		c.Error = msg
	case junitSkipped:
		c.Skipped = &junitMessage{Message: g.Message}
		c.SystemOut = &junitText{detail}
	default:
		c.SystemOut = &junitText{detail}
	}
	return c
}

// gateDetail is what a gate's test case says beyond its message: where its
// logs are, the tail of a check's log, a review's violations.
func gateDetail(g runner.GateResult) string {
	var b strings.Builder
	if c := g.Cached; c != nil {
		fmt.Fprintf(&b, "%s\n", c)
	}
	if g.LogPath != "" {
		fmt.Fprintf(&b, "Log: %s\n", g.LogPath)
		if g.Status != runner.GatePass {
			if tail := runner.LogTail(g.LogPath, tailLines, tailBytes); tail != "" {
				fmt.Fprintf(&b, "\n%s\n", tail)
			}
		}
	}
	for _, s := range g.Slots {
		fmt.Fprintf(&b, "%s@%d: %s - %s\n", s.Adapter, s.Index, s.Status, s.Message)
		if s.JSONPath != "" {
			fmt.Fprintf(&b, "  Review: %s\n", s.JSONPath)
		} else if s.LogPath != "" {
			fmt.Fprintf(&b, "  Log: %s\n", s.LogPath)
		}
		for _, v := range s.Violations {
			fmt.Fprintf(&b, "  [%s] %s %s: %s\n", v.Status, location(v), v.Priority, v.Issue)
			if v.Fix != "" && v.Status == runner.ViolationNew {
				fmt.Fprintf(&b, "    Fix: %s\n", v.Fix)
			}
			if v.Result != "" {
				fmt.Fprintf(&b, "    Result: %s\n", v.Result)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// xmlText is s with every character XML 1.0 does not allow (most control
// characters) replaced by U+FFFD: CDATA cannot escape them.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// location is `file:line` (`file` without a line).
func location(v runner.Violation) string {
	if v.Line > 0 {
		return fmt.Sprintf("%s:%d", v.File, v.Line)
	}
	return v.File
}

// seconds formats d as JUnit's seconds, three decimals.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// WriteJUnit writes r's JUnit report to path, atomically.
func WriteJUnit(path string, r Run) error {
	data, err := JUnit(r, time.Now())
	if err != nil {
		return err
	}
	return writeFile(path, data)
}
