package findings

import (
	"os"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// lineGen generates output lines made of the pieces the normalisation
// rules and summaryRE look for (digits, hex runs, blanks of every kind,
// temporary directories, colours, words in any case, non-ASCII letters
// that fold to ASCII ones), and the corpus's lines.
func lineGen(corpus [][]string) *rapid.Generator[string] {
	pieces := []string{"0", "7", "12", "0x1f", "deadbeefcafe", "DEADBEEFCAFE01", "a", "Z", " ", "  ", "\t", "\r", "\f", "\v",
		":", "-", "(", ")", ",", ".", "/", "./", "'", "=", "!", "tmp", "tmpab12cd9", "/tmp/x", "/var/tmp/y", os.TempDir() + "/z",
		"/var/folders/ab/cd/T/e", "\x1b[31m", "\x1b[0m", "ms", "s", "µs", "pid", "PID", "Port", "thread '", "goroutine ",
		"line ", "Col ", "FAIL", "ok", "Pass", "test result:", "rated at", "not remade because of errors", "errors", "passed",
		"ſ", "K", "é", "o", "pa", "a.go", ":9", ":x", "2026-11-26T20:00:00Z", time.Now().UTC().Format(time.RFC3339), "1732700000123", "Foo@1a2b3c", "pool-1-thread-5", "pytest-84", "0.5 seconds", "Time: 00:00.011", "Memory: 4.00 MB", "port 40000", "12:30:01", "x.go:12:5", "=== ", "!!!", "\x00"}
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 3).Draw(t, "from the corpus") == 0 {
			out := corpus[rapid.IntRange(0, len(corpus)-1).Draw(t, "output")]
			return out[rapid.IntRange(0, len(out)-1).Draw(t, "line")]
		}
		var b strings.Builder
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 12).Draw(t, "pieces") {
			b.WriteString(p)
		}
		return b.String()
	})
}

// TestGuardsAgree: the guards change nothing: Normalizer.Line is the
// rules applied without them, IsSummary is summaryRE without
// maybeSummary, and colonDigit holds for every line lineLocationRE finds
// a location in.
func TestGuardsAgree(t *testing.T) {
	corpus := corpusLines(t)
	n := NewNormalizer("/tmp/root", "/home/u/project")
	unguarded := func(s string) string {
		s = n.relative(strings.TrimRight(s, "\r\n"))
		for _, r := range rules() {
			if r.fn != nil {
				s = r.re.ReplaceAllStringFunc(s, func(m string) string { return r.fn(r.re.FindStringSubmatch(m), n.now) })
				continue
			}
			s = r.re.ReplaceAllString(s, r.with)
		}
		return strings.TrimSpace(s)
	}
	// Letters that fold to ASCII ones only in Unicode: the Kelvin sign
	// and the long s.
	for _, l := range []string{"o\u212a", "PA\u017f\u017f", "fail", "Test Result: x", "rated at 9/10"} {
		if got, want := IsSummary(l), summaryRE().MatchString(l); got != want {
			t.Errorf("IsSummary(%q) = %v, summaryRE says %v", l, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		l := lineGen(corpus).Draw(t, "line")
		if got, want := n.Line(l), unguarded(l); got != want {
			t.Fatalf("Line(%q) = %q, the rules without their guards give %q", l, got, want)
		}
		if lineLocationRE().MatchString(l) && !colonDigit(l) {
			t.Fatalf("lineLocationRE finds a location in %q, colonDigit does not", l)
		}
		for _, s := range []string{l, n.Line(l)} {
			if got, want := IsSummary(s), !locationRE().MatchString(s) && summaryRE().MatchString(s); got != want {
				t.Fatalf("IsSummary(%q) = %v, summaryRE says %v", s, got, want)
			}
		}
	})
}

// TestMaybeSummaryOnGenerated: every line generated from summaryRE passes
// maybeSummary.
func TestMaybeSummaryOnGenerated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := rapid.StringMatching(summaryRE().String()).Draw(t, "line")
		if summaryRE().MatchString(l) && !maybeSummary(l) {
			t.Fatalf("summaryRE matches %q, maybeSummary does not", l)
		}
	})
}
