package findings

import (
	"regexp"
	"strings"
	"sync"
)

// parseText reads lines no parser understood: every line that is not
// blank nor a summary (IsSummary), normalised, is a finding of kind line,
// repeated lines each counted; an error line (IsErrorLine) is an error, any
// other a warning. Compared as a multiset with the base's, a line the base
// does not print as often is new, whatever it says (a file name listed
// under an error's header is as new as the header).
//
// It stops at the first finding the result has no room for: a line past
// that is never normalised.
func parseText(lines []string, n *Normalizer, dir string, r *Result) {
	for _, l := range lines {
		if f, ok := textFinding(l, n, dir); ok && !r.add(f) {
			return
		}
	}
}

// textFinding is the finding of one line of plain output, unless it is
// blank or a summary. The file:line it names, if any, is its place, the
// file made relative to the project root (the check ran in dir).
func textFinding(l string, n *Normalizer, dir string) (Finding, bool) {
	norm := n.Line(l)
	if norm == "" || IsSummary(norm) {
		return Finding{}, false
	}
	sev := SeverityWarning
	if errorLineRE().MatchString(norm) { // IsErrorLine, the summary already ruled out
		sev = SeverityError
	}
	msg := strings.TrimSpace(n.relative(stripANSI(l)))
	f := Finding{Kind: KindLine, Severity: sev, Message: msg}
	if !colonDigit(msg) {
		return f, true // no file:line (lineLocationRE)
	}
	if m := lineLocationRE().FindStringSubmatch(msg); m != nil {
		f.File, f.Line = n.Path(dir, m[1]), atoi(m[2])
	}
	return f, true
}

// colonDigit reports whether s holds a colon followed by an ASCII digit,
// as every line lineLocationRE finds a location in does.
func colonDigit(s string) bool {
	for {
		i := strings.IndexByte(s, ':')
		if i < 0 || i+1 == len(s) {
			return false
		}
		if c := s[i+1]; '0' <= c && c <= '9' {
			return true
		}
		s = s[i+1:]
	}
}

// lineLocationRE finds the file:line a line of text starts with, or holds
// after a blank ("a.go:12:5: msg", "error: x.py:3: y").
var lineLocationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s\[(<"'])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]+):(\d+)(?::\d+)?\b`)
})

// maybeErrorRE matches every raw line whose normalised form errorLineRE
// can match (a superset: digits after a colon, "line" and a number, a
// pair of numbers in parentheses, the words): lines it does not match are
// no error lines.
var maybeErrorRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i):\d|\b(?:line|col|column)\s+\d|\(\d+,\s*\d+\)|` +
		`err|fail|fatal|panic|exception|traceback|warn|assert|undefined|cannot|can't|unable|invalid|not found|expected|violation|denied|refused|[✗✖×●]`)
})

// ansiRE matches terminal escape sequences.
var ansiRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`) })

// stripANSI drops the terminal escape sequences of s (most lines hold
// none, and then cost no regular expression).
func stripANSI(s string) string {
	if strings.IndexByte(s, '\x1b') < 0 {
		return s
	}
	return ansiRE().ReplaceAllString(s, "")
}

// Stops that build tools show in their output: they stop at the first
// failing target unless told to go on.
var (
	makeErrorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^g?make(?:\[\d+\])?: \*\*\* `) })
)

// buildStops notes, line by line, what make, Maven and Gradle print when
// they stop at their first failure.
type buildStops struct{ makeErr, makeKept, mvnSkipped, gradleFailed bool }

// line notes one line of output.
func (b *buildStops) line(l string) {
	if !strings.Contains(l, "make") && !strings.Contains(l, "SKIPPED") && !strings.Contains(l, "BUILD FAILED") {
		return
	}
	t := strings.TrimSpace(stripANSI(l))
	switch {
	case makeErrorRE().MatchString(t):
		b.makeErr = true
	case strings.Contains(t, "not remade because of errors"):
		b.makeKept = true
	case strings.HasPrefix(t, "[INFO]") && strings.HasSuffix(t, "SKIPPED"):
		b.mvnSkipped = true
	case t == "BUILD FAILED" || strings.HasPrefix(t, "BUILD FAILED in "):
		b.gradleFailed = true
	}
}

// add adds the stops of make, Maven and Gradle runs that ended at their
// first failure: make without -k (it prints no "not remade because of
// errors"), a Maven reactor that skipped modules after a failure, Gradle
// without --continue.
func (b buildStops) add(words []string, r *Result) {
	makeErr, makeKept, mvnSkipped, gradleFailed := b.makeErr, b.makeKept, b.mvnSkipped, b.gradleFailed
	tool := toolOf(words)
	switch {
	case makeErr && !makeKept && tool.name == "make" && !hasAnyWord(tool.args, "-k", "--keep-going"):
		r.Stops = append(r.Stops, Stop{Unit: "make", Reason: "make stopped at its first failing target (no -k)", Tool: "make", Kind: StopFailFast})
	case mvnSkipped:
		r.Stops = append(r.Stops, Stop{Unit: "maven", Reason: "Maven skipped the modules after the first failing one (no -fae)", Tool: "maven", Kind: StopFailFast})
	case gradleFailed && tool.name == "gradle" && !hasAnyWord(tool.args, "--continue"):
		r.Stops = append(r.Stops, Stop{Unit: "gradle", Reason: "Gradle stopped at its first failing task (no --continue)", Tool: "gradle", Kind: StopFailFast})
	}
}

// hasAnyWord reports whether words holds one of these.
func hasAnyWord(words []string, these ...string) bool {
	for _, w := range words {
		for _, t := range these {
			if w == t {
				return true
			}
		}
	}
	return false
}
