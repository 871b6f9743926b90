package findings

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// pytest ----------------------------------------------------------------

var (
	pytestSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(FAILED|ERROR) (\S+?)(?: - (.*))?$`)
	})
	pytestSectionRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^_{3,} (.+?) _{3,}$`)
	})
	pytestHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^={3,} .* ={3,}$`) })
	pyLocationRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+\.py):(\d+): `) })
	// pytestFinalRE matches pytest's closing line, with or without -q:
	// "== 1 failed, 2 passed in 0.12s ==", "2 failed, 1 deselected in
	// 0.07s", "no tests ran in 0.01s".
	pytestFinalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:=+ )?(?:(?:\d+ [a-z]+(?:, )?)+|no tests ran) in [\d.]+s\b.*$`)
	})
	// pyFrameRE matches a frame of a crash's traceback (faulthandler).
	pyFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+File "([^"]+\.py)", line (\d+) in (test\w*)$`) })
)

// parsePytest reads pytest's text output: failed and erroring tests from
// its short test summary (FAILED tests/test_x.py::test_y - message), their
// whole report from the FAILURES section, and the stops (-x, --maxfail,
// collection errors).
func parsePytest(lines []string, n *Normalizer, dir string, r *Result) {
	sections := map[string][]string{}
	var order []string
	var cur string
	inReports := false
	for _, l := range lines {
		switch {
		case pytestHeaderRE().MatchString(l):
			inReports = strings.Contains(l, " FAILURES ") || strings.Contains(l, " ERRORS ")
			cur = ""
			continue
		case inReports && pytestSectionRE().MatchString(l):
			cur = pytestSectionRE().FindStringSubmatch(l)[1]
			if _, seen := sections[cur]; !seen {
				order = append(order, cur)
			}
			continue
		}
		if inReports && cur != "" {
			sections[cur] = append(sections[cur], l)
		}
	}
	// pytest's progress ends at [100%] when every selected test ran.
	complete := false
	for _, l := range lines {
		if strings.HasSuffix(strings.TrimSpace(l), "[100%]") {
			complete = true
		}
	}
	summarised, named := false, false
	for _, l := range lines {
		m := pytestSummaryRE().FindStringSubmatch(l)
		if m == nil {
			switch {
			case strings.HasPrefix(l, "!!!") && strings.Contains(l, "stopping after") && !complete:
				r.Stops = append(r.Stops, Stop{Unit: "pytest", Reason: "pytest stopped at its first failures (-x, --maxfail)", Tool: FormatPytest, Kind: StopFailFast})
			case strings.HasPrefix(l, "!!!") && strings.Contains(l, "Interrupted"):
				r.Stops = append(r.Stops, Stop{Unit: "pytest", Reason: "pytest was interrupted before running its tests: " + strings.Trim(l, "! "),
					Tool: FormatPytest, Kind: StopUnbuilt})
			case pytestFinalRE().MatchString(strings.TrimSpace(l)):
				summarised = true
			}
			continue
		}
		named = true
		suite, name, _ := strings.Cut(m[2], "::")
		f := Finding{Kind: KindTest, Suite: n.Path(dir, suite), Test: name, Status: StatusFailed, Severity: SeverityError, Message: m[3]}
		if sec, ok := sections[strings.ReplaceAll(name, "::", ".")]; ok {
			f.Message = strings.TrimSpace(strings.Join(sec, "\n"))
			for _, s := range sec {
				if lm := pyLocationRE().FindStringSubmatch(s); lm != nil {
					f.File, f.Line = n.Path(dir, lm[1]), atoi(lm[2])
				}
			}
		} else if sec, ok := sections[m[2]]; ok {
			f.Message = strings.TrimSpace(strings.Join(sec, "\n"))
		}
		r.add(f)
	}
	if !named {
		pytestSections(sections, order, n, dir, r)
	}
	if !summarised {
		pytestCrash(lines, n, dir, r)
	}
}

// pytestSections adds the failed tests of a FAILURES section when pytest
// printed no short summary (-rN, -q with -r off): each section's header
// names the test (TestA.test_it is TestA::test_it), its first location
// line the file it is defined in.
func pytestSections(sections map[string][]string, order []string, n *Normalizer, dir string, r *Result) {
	for _, name := range order {
		if strings.HasPrefix(name, "ERROR ") || strings.HasPrefix(name, "Captured ") {
			continue
		}
		sec := sections[name]
		f := Finding{Kind: KindTest, Test: strings.ReplaceAll(name, ".", "::"), Status: StatusFailed, Severity: SeverityError,
			Message: strings.TrimSpace(strings.Join(sec, "\n"))}
		for _, s := range sec {
			if lm := pyLocationRE().FindStringSubmatch(s); lm != nil {
				if f.Suite == "" {
					f.Suite = n.Path(dir, lm[1])
				}
				f.File, f.Line = n.Path(dir, lm[1]), atoi(lm[2])
			}
		}
		r.add(f)
	}
}

// pytestCrash notes a pytest run that ended before its closing line: the
// interpreter crashed (a segfault in a native extension, os._exit) and
// the tests after the one running then never ran. The crash's traceback
// names that test when it runs in a test file: it is a failed test, which
// a rerun can leave out.
func pytestCrash(lines []string, n *Normalizer, dir string, r *Result) {
	reason := "pytest ended before its closing summary (a crash, os._exit, a signal): the tests after the one running then never ran"
	for i, l := range lines {
		_, msg, ok := strings.Cut(l, "Fatal Python error: ")
		if !ok {
			continue
		}
		for _, fr := range lines[i+1:] {
			if m := pyFrameRE().FindStringSubmatch(fr); m != nil {
				file := n.Path(dir, m[1])
				if strings.HasPrefix(file, "/") {
					continue
				}
				r.add(Finding{Kind: KindTest, Suite: file, Test: m[3], Status: StatusFailed, Severity: SeverityError,
					File: file, Line: atoi(m[2]), Message: "Fatal Python error: " + msg})
				reason = fmt.Sprintf("pytest crashed in %s::%s (Fatal Python error: %s): the tests after it never ran", file, m[3], msg)
				break
			}
		}
		break
	}
	r.Stops = append(r.Stops, Stop{Unit: "pytest", Reason: reason, Tool: FormatPytest, Kind: StopCrash})
}

// cargo test --------------------------------------------------------------

var (
	cargoTestRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored)`) })
	cargoTerseRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+) --- (FAILED)$`) })
	cargoOutputRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---- (\S+) stdout ----$`) })
	cargoRunningRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*Running (\S+)`) })
	cargoRerunRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^error: test failed, to rerun pass `([^`]*)`") })
	rustPanicRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`panicked at ([^:\s]+\.rs):(\d+):(\d+)`) })
)

// cargoStatus maps cargo's words to statuses.
var cargoStatus = map[string]Status{"ok": StatusPassed, "FAILED": StatusFailed, "ignored": StatusSkipped}

// parseCargoTest reads `cargo test`: each test binary's tests (test x ...
// ok, or x --- FAILED with -q), their captured output, the target named by
// "Running" or by "to rerun pass", and whether cargo stopped at the first
// failing target (no --no-fail-fast: no "N targets failed" closing).
func parseCargoTest(lines []string, n *Normalizer, dir string, r *Result) {
	type binary struct {
		suite string
		tests []*Finding
	}
	var bins []*binary
	cur := &binary{}
	outputs := map[string][]string{}
	var outName string
	failedFast, summarised, unbuilt := false, false, false
	open, ended := false, 0 // open: a test binary started and gave no result yet
	for _, l := range lines {
		if strings.HasPrefix(l, "running ") && strings.HasSuffix(l, " tests") || l == "running 1 test" {
			open = true
		}
		if strings.HasPrefix(l, "test result:") {
			open = false
		}
		if open && cargoRunningRE().MatchString(l) {
			ended++
			open = false
		}
		switch m := cargoOutputRE().FindStringSubmatch(l); {
		case m != nil:
			outName = m[1]
			continue
		case l == "failures:" || strings.HasPrefix(l, "test result:"):
			outName = ""
		}
		if outName != "" {
			outputs[outName] = append(outputs[outName], l)
			continue
		}
		switch {
		case cargoRunningRE().MatchString(l):
			cur = &binary{suite: cargoRunningRE().FindStringSubmatch(l)[1]}
		case cargoTestRE().MatchString(l):
			m := cargoTestRE().FindStringSubmatch(l)
			cur.tests = append(cur.tests, &Finding{Kind: KindTest, Test: m[1], Status: cargoStatus[m[2]]})
		case cargoTerseRE().MatchString(l):
			m := cargoTerseRE().FindStringSubmatch(l)
			cur.tests = append(cur.tests, &Finding{Kind: KindTest, Test: m[1], Status: StatusFailed})
		case strings.HasPrefix(l, "test result:"):
			bins = append(bins, cur)
			cur = &binary{}
		case cargoRerunRE().MatchString(l):
			failedFast = true
			if len(bins) > 0 && bins[len(bins)-1].suite == "" {
				bins[len(bins)-1].suite = cargoRerunRE().FindStringSubmatch(l)[1]
			}
		case strings.HasPrefix(l, "error: ") && strings.Contains(l, "target") && strings.Contains(l, "failed"):
			summarised = true
		case strings.HasPrefix(l, "error: could not compile"):
			unbuilt = true
			r.Stops = append(r.Stops, Stop{Unit: "cargo", Reason: "it did not build", Tool: FormatCargoTest, Kind: StopUnbuilt})
		}
	}
	if open {
		ended++
	}
	if ended > 0 {
		r.Stops = append(r.Stops, Stop{Unit: "cargo", Tool: FormatCargoTest, Kind: StopCrash,
			Reason: fmt.Sprintf("%d test binary(ies) ended before their result (std::process::exit, an abort, a signal): their later tests never ran", ended)})
	}
	for _, b := range bins {
		for _, t := range b.tests {
			t.Suite = b.suite
			t.Severity = SeverityNote
			if t.Status == StatusFailed {
				t.Severity = SeverityError
				t.Message = strings.TrimSpace(strings.Join(outputs[t.Test], "\n"))
				if m := rustPanicRE().FindStringSubmatch(t.Message); m != nil {
					t.File, t.Line = n.Path(dir, m[1]), atoi(m[2])
				}
			}
			r.add(*t)
		}
	}
	if failedFast && !summarised {
		r.Stops = append(r.Stops, Stop{Unit: "cargo", Reason: "cargo test stopped at its first failing test target (no --no-fail-fast)",
			Tool: FormatCargoTest, Kind: StopFailFast})
	}
	if unbuilt {
		parseDiagnostics("rustc", lines, n, dir, r)
	}
}

// jest ------------------------------------------------------------------

var (
	jestFileRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAIL|PASS) (\S+)`) })
	jestTitleRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  ● (.+)$`) })
	jestSuitesRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Test Suites: .*\b(\d+) of (\d+) total`) })
	jsLocRE      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\(?((?:/|\.{0,2}/?)?[\w./-]+\.[cm]?[jt]sx?):(\d+):(\d+)\)?`)
	})
)

// parseJest reads jest's default reporter: each failed test's block
// ("● Suite › name", its message and stack) under its file's FAIL line.
func parseJest(lines []string, n *Normalizer, dir string, r *Result) {
	var file string
	var cur *Finding
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		cur.Message = strings.TrimSpace(strings.Join(dedent(body), "\n"))
		for _, b := range body {
			if m := jsLocRE().FindStringSubmatch(b); m != nil && !strings.Contains(b, "node_modules") {
				cur.File, cur.Line = n.Path(dir, m[1]), atoi(m[2])
				break
			}
		}
		r.add(*cur)
		cur, body = nil, nil
	}
	for _, l := range lines {
		if m := jestFileRE().FindStringSubmatch(l); m != nil {
			flush()
			file = n.Path(dir, m[2])
			continue
		}
		if m := jestTitleRE().FindStringSubmatch(l); m != nil {
			flush()
			cur = &Finding{Kind: KindTest, Suite: file, Test: m[1], Status: StatusFailed, Severity: SeverityError}
			continue
		}
		if cur != nil && l != "" && !strings.HasPrefix(l, " ") {
			flush()
			continue
		}
		if cur != nil {
			body = append(body, l)
		}
	}
	flush()
	jestStops(lines, r)
}

// jestStops notes a jest run that did not run all its suites: without
// its closing "Test Suites:" line (a test called process.exit, a crash),
// or with "N of M total" (--bail stopped it).
func jestStops(lines []string, r *Result) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "Test Suites: ") {
			continue
		}
		if m := jestSuitesRE().FindStringSubmatch(l); m != nil && m[1] != m[2] {
			r.Stops = append(r.Stops, Stop{Unit: "jest", Tool: FormatJest, Kind: StopFailFast,
				Reason: fmt.Sprintf("jest ran %s of its %s test suites: it stopped at the first failing one (--bail)", m[1], m[2])})
		}
		return
	}
	r.Stops = append(r.Stops, Stop{Unit: "jest", Tool: FormatJest, Kind: StopCrash,
		Reason: "jest ended before its closing summary (a test called process.exit, a crash): the tests after it never ran"})
}
