package findings

import (
	"io"
	"regexp"
	"strings"
	"sync"
)

// sniffer recognises a format in the output of a command that names none
// (make test, npm test, a script, a chain of commands): the lines that
// start its part of the output and those that end it.
type sniffer struct {
	format string
	start  *regexp.Regexp
	end    *regexp.Regexp
	// before is how many lines before the first start line are its (the
	// file name above eslint's first problem).
	before int
	// untilEnd: without an end line its part runs to the end of the
	// output (a test runner that died before its summary).
	untilEnd bool
	// parse reads its part (nil: errorformat's patterns of format).
	parse func(lines []string, n *Normalizer, dir string, r *Result)
	// may is a cheap test every line start matches passes (the bytes a
	// start line begins with, a word it holds): most lines of output fail
	// it and cost no regular expression.
	may func(l string) bool
}

// startsWithAny is a may of the lines whose first byte is one of these.
func startsWithAny(bytes string) func(string) bool {
	return func(l string) bool { return l != "" && strings.IndexByte(bytes, l[0]) >= 0 }
}

// sniffers are the formats recognised inside any output, in the order
// they are read.
var sniffers = sync.OnceValue(func() []sniffer {
	return []sniffer{
		{format: FormatGoTestJSON, parse: parseGoTestJSON, may: func(l string) bool { return strings.HasPrefix(l, `{"Time":"`) }, start: regexp.MustCompile(`^\{"Time":"[^"]*","Action":"`), end: regexp.MustCompile(`^\{"Time":"[^"]*","Action":"`)},
		{format: FormatGoTest, untilEnd: true, parse: parseGoTest, may: startsWithAny("=-oF?#"),
			start: regexp.MustCompile(`^(?:=== RUN |--- (?:FAIL|PASS|SKIP): |(?:ok  |FAIL|\?   )\t\S|# [\w.\-/]+(?: \[[\w.\-/]+\.test\])?$)`),
			end:   regexp.MustCompile(`^(?:(?:ok  |FAIL|\?   )\t\S.*|FAIL|PASS)$`)},
		{format: FormatPytest, untilEnd: true, parse: parsePytest,
			may:   func(l string) bool { return startsWithAny("=FE")(l) || strings.HasSuffix(l, "%]") },
			start: regexp.MustCompile(`^(?:=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+|(?:FAILED|ERROR) \S+::\S.*|(?:\S+\.py )?[.FEsxX]+\s+\[\s*\d+%\])$`),
			end:   pytestFinalRE()},
		{format: FormatJest, untilEnd: true, parse: parseJest, may: startsWithAny("PF T"),
			start: regexp.MustCompile(`^(?:(?:PASS|FAIL) \S+\.[cm]?[jt]sx?\b|  ● |Test Suites: )`),
			end:   regexp.MustCompile(`^(?:(?:Test Suites|Tests|Snapshots|Time): |Ran all test suites)`)},
		{format: FormatCargoTest, untilEnd: true, parse: parseCargoTest, may: startsWithAny(" \t\n\v\f\rr"),
			start: regexp.MustCompile(`^(?:\s+(?:Compiling|Finished|Running|Doc-tests) |running \d+ tests?$)`),
			end:   regexp.MustCompile(`^(?:test result: |error: |Caused by:|\s+process didn't exit successfully|note: test exited abnormally)`)},
		{format: "eslint", before: 1, may: startsWithAny(" \t\n\v\f\r"),
			start: regexp.MustCompile(`^\s+\d+:\d+\s+(?:error|warning)\s+\S`),
			end:   regexp.MustCompile(`^✖ \d+ problems?`)},
		{format: "tsc", may: func(l string) bool { return strings.Contains(l, " TS") },
			start: regexp.MustCompile(`^\S+(?:\(\d+,\d+\): | ?:\d+:\d+ - )(?:error|warning) TS\d+: `),
			end:   regexp.MustCompile(`^Found \d+ errors?`)},
	}
})

// span is where s's part of lines is: [from, to), ok false when s's
// format is not there.
func (s sniffer) span(lines []string) (from, to int, ok bool) {
	from = -1
	for i, l := range lines {
		if l = stripANSI(l); s.may(l) && s.start.MatchString(l) {
			from = i
			break
		}
	}
	if from < 0 {
		return 0, 0, false
	}
	to = -1
	for i := len(lines) - 1; i >= from; i-- {
		l := stripANSI(lines[i])
		if s.end.MatchString(l) {
			to = i + 1
			break
		}
		if to < 0 && !s.untilEnd && s.start.MatchString(l) {
			to = i + 1
		}
	}
	if to < 0 {
		to = len(lines)
	}
	return max(from-s.before, 0), to, true
}

// Sniff names the formats recognised in lines (see sniffers), in order.
func Sniff(lines []string) []string {
	var out []string
	for _, s := range sniffers() {
		if _, _, ok := s.span(lines); ok {
			out = append(out, s.format)
		}
	}
	return out
}

// parseSniffed reads the output of a command no parser reads as such:
// each format recognised in it (sniffers) is read by its parser from its
// part of the output, tests and stops included (a panic that ended go
// test inside `make test` is a stop there too); the lines no such part
// holds are read as text (parseText). The result's format names them all
// ("text+go-test").
func parseSniffed(lines []string, n *Normalizer, dir string, r *Result) {
	readSniffed(nil, lines, n, dir, r)
}

// readSniffed is parseSniffed of lines that follow lines no sniffer's part
// can hold, already read as text (before).
func readSniffed(before []Finding, lines []string, n *Normalizer, dir string, r *Result) {
	claimed := make([]bool, len(lines))
	formats := []string{FormatText}
	for _, s := range sniffers() {
		from, to, ok := s.span(lines)
		if !ok {
			continue
		}
		formats = append(formats, s.format)
		if s.parse != nil {
			s.parse(lines[from:to], n, dir, r)
		} else {
			parseDiagnostics(s.format, lines[from:to], n, dir, r)
		}
		for i := from; i < to; i++ {
			claimed[i] = true
		}
	}
	r.Format = strings.Join(formats, "+")
	for _, f := range before {
		if !r.add(f) {
			return
		}
	}
	for i, l := range lines {
		if claimed[i] {
			continue
		}
		if f, ok := textFinding(l, n, dir); ok && !r.add(f) {
			return
		}
	}
}

// maxBefore is the most lines a sniffer's part starts before its first
// start line (sniffer.before).
const maxBefore = 1

// startsPart reports whether a sniffer's part of the output can start at
// line l.
func startsPart(l string) bool {
	l = stripANSI(l)
	for _, s := range sniffers() {
		if s.may(l) && s.start.MatchString(l) {
			return true
		}
	}
	return false
}

// streamSniffed reads plain output as parseSniffed does, holding only what
// can matter: a line before the first line a sniffer's part can start at
// (and the maxBefore lines above it) is read as text as it comes, and not
// kept once the result would be full; only the lines from there on are
// held, to be read as parseSniffed reads them. Output that no format shows
// in costs no more memory than its findings.
func streamSniffed(output io.Reader, n *Normalizer, dir string, stops *buildStops, r *Result) {
	l := newLineReader(output)
	var batch, held, above []string
	var before []Finding
	started := false
	for {
		if batch = l.batch(batch[:0]); len(batch) == 0 {
			break
		}
		for _, line := range batch {
			stops.line(line)
			if !started && startsPart(line) {
				started, held = true, append(above, line)
				continue
			}
			if started {
				held = append(held, line)
				continue
			}
			if above = append(above, line); len(above) > maxBefore {
				if len(before) <= bounds.findings { // one past them cuts the result
					if f, ok := textFinding(above[0], n, dir); ok {
						before = append(before, f)
					}
				}
				above = append(above[:0], above[1:]...)
			}
		}
	}
	if !started {
		held = above
	}
	readSniffed(before, held, n, dir, r)
	r.readEnd(l.cut, l.failure())
}
