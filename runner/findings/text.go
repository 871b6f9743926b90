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
		norm := n.Line(l)
		if !IsErrorLine(norm) {
			continue
		}
		r.add(Finding{Kind: KindLine, Severity: SeverityError, Message: strings.TrimSpace(n.relative(stripANSI(l)))})
	}
}

// ansiRE matches terminal escape sequences.
var ansiRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`) })

func stripANSI(s string) string { return ansiRE().ReplaceAllString(s, "") }

// Stops that build tools show in their output: they stop at the first
// failing target unless told to go on.
var (
	makeErrorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^g?make(?:\[\d+\])?: \*\*\* `) })
)

// buildToolStops adds the stops of make, Maven and Gradle runs that ended
// at their first failure: make without -k (it prints no "not remade
// because of errors"), a Maven reactor that skipped modules after a
// failure, Gradle without --continue.
func buildToolStops(words []string, lines []string, r *Result) {
	var makeErr, makeKept, mvnSkipped, gradleFailed bool
	for _, l := range lines {
		t := strings.TrimSpace(stripANSI(l))
		switch {
		case makeErrorRE().MatchString(t):
			makeErr = true
		case strings.Contains(t, "not remade because of errors"):
			makeKept = true
		case strings.HasPrefix(t, "[INFO]") && strings.HasSuffix(t, "SKIPPED"):
			mvnSkipped = true
		case t == "BUILD FAILED" || strings.HasPrefix(t, "BUILD FAILED in "):
			gradleFailed = true
		}
	}
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
