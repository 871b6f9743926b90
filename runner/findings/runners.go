package findings

import (
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
)

// parsePytest reads pytest's text output: failed and erroring tests from
// its short test summary (FAILED tests/test_x.py::test_y - message), their
// whole report from the FAILURES section, and the stops (-x, --maxfail,
// collection errors).
func parsePytest(lines []string, n *Normalizer, dir string, r *Result) {
	sections := map[string][]string{}
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
	for _, l := range lines {
		m := pytestSummaryRE().FindStringSubmatch(l)
		if m == nil {
			switch {
			case strings.HasPrefix(l, "!!!") && strings.Contains(l, "stopping after") && !complete:
				r.Stops = append(r.Stops, Stop{Unit: "pytest", Reason: "pytest stopped at its first failures (-x, --maxfail)"})
			case strings.HasPrefix(l, "!!!") && strings.Contains(l, "Interrupted"):
				r.Stops = append(r.Stops, Stop{Unit: "pytest", Reason: "pytest was interrupted before running its tests: " + strings.Trim(l, "! ")})
			}
			continue
		}
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
	for _, l := range lines {
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
			r.Stops = append(r.Stops, Stop{Unit: "cargo", Reason: "it did not build"})
		}
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
		r.Stops = append(r.Stops, Stop{Unit: "cargo", Reason: "cargo test stopped at its first failing test target (no --no-fail-fast)"})
	}
	if unbuilt {
		parseDiagnostics("rustc", lines, n, dir, r)
	}
}

// jest ------------------------------------------------------------------

var (
	jestFileRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAIL|PASS) (\S+)`) })
	jestTitleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  ● (.+)$`) })
	jsLocRE     = sync.OnceValue(func() *regexp.Regexp {
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
}
