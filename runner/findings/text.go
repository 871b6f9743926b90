package findings

import (
	"regexp"
	"strings"
	"sync"
)

// parseText reads output no parser understands: every error line
// (IsErrorLine, after normalising) is a finding of kind line, repeated
// lines each counted, summaries never.
func parseText(lines []string, n *Normalizer, r *Result) {
	for _, l := range lines {
		if f, ok := textFinding(l, n); ok {
			r.add(f)
		}
	}
}

// textFinding is the finding of one line of plain output, if it is an
// error line. Most lines of a long output are not: a cheap look at the
// raw line (maybeErrorRE) spares them the normalising.
func textFinding(l string, n *Normalizer) (Finding, bool) {
	if !maybeErrorRE().MatchString(l) {
		return Finding{}, false
	}
	if !IsErrorLine(n.Line(l)) {
		return Finding{}, false
	}
	return Finding{Kind: KindLine, Severity: SeverityError, Message: strings.TrimSpace(n.relative(stripANSI(l)))}, true
}

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

func stripANSI(s string) string { return ansiRE().ReplaceAllString(s, "") }

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
		r.Stops = append(r.Stops, Stop{Unit: "make", Reason: "make stopped at its first failing target (no -k)"})
	case mvnSkipped:
		r.Stops = append(r.Stops, Stop{Unit: "maven", Reason: "Maven skipped the modules after the first failing one (no -fae)"})
	case gradleFailed && tool.name == "gradle" && !hasAnyWord(tool.args, "--continue"):
		r.Stops = append(r.Stops, Stop{Unit: "gradle", Reason: "Gradle stopped at its first failing task (no --continue)"})
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
