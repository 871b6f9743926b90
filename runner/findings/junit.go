package findings

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// junitSuite is a <testsuite> (or the <testsuites> around them), which
// may nest.
type junitSuite struct {
	Name   string       `xml:"name,attr"`
	File   string       `xml:"file,attr"`
	Suites []junitSuite `xml:"testsuite"`
	Cases  []junitCase  `xml:"testcase"`
}

// junitCase is a <testcase>.
type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	File      string         `xml:"file,attr"`
	Line      int            `xml:"line,attr"`
	Failures  []junitProblem `xml:"failure"`
	Errors    []junitProblem `xml:"error"`
	Skipped   *junitProblem  `xml:"skipped"`
	SystemOut string         `xml:"system-out"`
}

// junitProblem is a <failure>, <error> or <skipped>.
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// maxJUnitBytes bounds one JUnit file.
const maxJUnitBytes = 64 << 20

// parseJUnit reads the test cases of JUnit XML files (pytest
// --junitxml, jest-junit, Maven Surefire, cargo nextest, Gradle): each
// test case is a test, known by its class (or file, or suite) and name.
func parseJUnit(paths []string, n *Normalizer, dir string, r *Result) {
	for _, p := range paths {
		if err := readJUnit(p, n, dir, r); err != nil {
			r.Problem = err.Error()
			return
		}
	}
}

func readJUnit(p string, n *Normalizer, dir string, r *Result) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("read the JUnit report %s: %w", p, err)
	}
	defer f.Close()
	d := xml.NewDecoder(io.LimitReader(f, maxJUnitBytes))
	d.Strict = false
	var root junitSuite
	if err := d.Decode(&root); err != nil {
		return fmt.Errorf("read the JUnit report %s: %w", p, err)
	}
	junitCases(root, "", n, dir, r)
	return nil
}

// junitCases adds s's test cases, and those of the suites in it.
func junitCases(s junitSuite, file string, n *Normalizer, dir string, r *Result) {
	if s.File != "" {
		file = s.File
	}
	for _, c := range s.Cases {
		f := Finding{Kind: KindTest, Suite: strings.TrimSpace(c.Classname), Test: strings.TrimSpace(c.Name),
			Status: StatusPassed, Severity: SeverityNote, Line: max(c.Line, 0)}
		cf := c.File
		if cf == "" {
			cf = file
		}
		if cf != "" {
			f.File = n.Path(dir, cf)
		}
		if f.Suite == "" || f.Suite == f.Test {
			// jest-junit names the class after the test: the file
			// (or suite) tells tests apart.
			f.Suite = f.File
			if f.Suite == "" {
				f.Suite = strings.TrimSpace(s.Name)
			}
		}
		problems := append(append([]junitProblem(nil), c.Failures...), c.Errors...)
		switch {
		case len(problems) > 0:
			f.Status, f.Severity = StatusFailed, SeverityError
			var parts []string
			for _, p := range problems {
				text := strings.TrimSpace(n.relative(p.Text))
				if text == "" || !strings.Contains(text, strings.TrimSpace(p.Message)) {
					text = strings.TrimSpace(strings.TrimSpace(p.Message) + "\n" + text)
				}
				parts = append(parts, text)
			}
			f.Message = strings.Join(parts, "\n\n")
			if f.Line == 0 {
				f.File, f.Line = junitLocation(f.Message, f.File, n, dir)
			}
		case c.Skipped != nil:
			f.Status = StatusSkipped
		}
		r.add(f)
	}
	for _, sub := range s.Suites {
		junitCases(sub, file, n, dir, r)
	}
}

// junitLocation is where a failure message first points into a file of
// the project (file.py:12:, (file.js:8:25)), else file with no line.
func junitLocation(msg, file string, n *Normalizer, dir string) (string, int) {
	for _, l := range strings.Split(msg, "\n") {
		if strings.Contains(l, "node_modules") || strings.Contains(l, "site-packages") {
			continue
		}
		if m := pyLocationRE().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return n.Path(dir, m[1]), atoi(m[2])
		}
		if m := jsLocRE().FindStringSubmatch(l); m != nil {
			if p := n.Path(dir, m[1]); !strings.HasPrefix(p, "/") {
				return p, atoi(m[2])
			}
		}
	}
	return file, 0
}

// clockSlack is how much earlier than the run's start a file it wrote may
// be stamped: file times come from the kernel's coarse clock, a tick
// behind the clock a process reads.
const clockSlack = 100 * time.Millisecond

// JUnitFiles lists the JUnit files a run wrote: those matching pattern (a
// path or glob relative to dir, the check's absolute working directory)
// modified at or after since. A pattern that matches only older files (a
// report an earlier run left) or nothing is a problem, named in the
// error: the run's tests cannot be read from it.
func JUnitFiles(dir, pattern string, since time.Time) ([]string, error) {
	if pattern == "" {
		return nil, nil
	}
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("junit %q: %w", pattern, err)
	}
	var out []string
	stale := 0
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if st.ModTime().Before(since.Add(-clockSlack)) {
			stale++
			continue
		}
		out = append(out, m)
	}
	switch {
	case len(out) > 0:
		return out, nil
	case stale > 0:
		return nil, fmt.Errorf("the JUnit report %s was not written by this run (it is older)", pattern)
	}
	return nil, errors.New("the check wrote no JUnit report " + pattern)
}
