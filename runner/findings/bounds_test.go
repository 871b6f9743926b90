package findings

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestParseBounds: at each bound of a result (MaxFindings, MaxLines,
// MaxBytes) an output just within it is read whole and comparable, and
// one just past it is cut short and says which bound cut it; past
// MaxFindings the parsers stop, yet the stops of build tools printed
// later are still seen. The table runs at bounds lowered 64 times (every
// case, every assertion) and, unless the test binary is built with -race
// (where reading the million lines and 32 MB of the real bounds costs
// minutes of CPU), at the real ones too; TestBoundsAreTheConstants holds
// Parse's bounds to the constants.
func TestParseBounds(t *testing.T) {
	low := bounds
	low.findings, low.lines, low.bytes = MaxFindings/64, MaxLines/64, MaxBytes/64
	t.Run("lowered", func(t *testing.T) {
		old := bounds
		bounds = low
		t.Cleanup(func() { bounds = old })
		parseBounds(t)
	})
	if raceEnabled {
		t.Log("built with -race: the real bounds are left to a run without it")
		return
	}
	t.Run("real", parseBounds)
}

// TestBoundsAreTheConstants: Parse applies the exported bounds.
func TestBoundsAreTheConstants(t *testing.T) {
	if bounds.findings != MaxFindings || bounds.lines != MaxLines || bounds.bytes != MaxBytes {
		t.Errorf("Parse's bounds are %+v, the constants %d findings, %d lines, %d bytes", bounds, MaxFindings, MaxLines, MaxBytes)
	}
}

// parseBounds is TestParseBounds at the bounds set.
func parseBounds(t *testing.T) {
	maxFindings, maxLines, maxBytes := bounds.findings, bounds.lines, int(bounds.bytes)
	lines := func(n int, line func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i) + "\n")
		}
		return b.String()
	}
	diag := func(i int) string { return fmt.Sprintf("pkg/a%d.go:%d:2: unreachable code", i, i+1) }
	makeStop := "make: *** [Makefile:3: test] Error 1\n"
	tests := []struct {
		name     string
		spec     Spec
		out      string
		cut      string
		findings int
		stops    int
	}{
		{"text, MaxFindings lines", Spec{Format: FormatText, Failed: true}, lines(maxFindings, diag), "", maxFindings, 0},
		{"text, one line more", Spec{Format: FormatText, Failed: true}, lines(maxFindings+1, diag), cutFindings, maxFindings, 0},
		{"text, make's stop past the cap", Spec{Command: "make test", Failed: true}, lines(maxFindings+5, diag) + makeStop, cutFindings, maxFindings, 1},
		{"govet, MaxFindings diagnostics", Spec{Format: "govet", Failed: true}, lines(maxFindings, diag), "", maxFindings, 0},
		{"govet, one more", Spec{Format: "govet", Failed: true}, lines(maxFindings+1, diag), cutFindings, maxFindings, 0},
		{"govet, make's stop past the cap", Spec{Format: "govet", Command: "make vet", Failed: true}, lines(maxFindings+5, diag) + makeStop, cutFindings, maxFindings, 1},
		{"MaxLines blank lines", Spec{Format: FormatText, Failed: true}, strings.Repeat("\n", maxLines-1) + "x.go:1: boom\n", "", 1, 0},
		{"one line more", Spec{Format: FormatText, Failed: true}, strings.Repeat("\n", maxLines) + "x.go:1: boom\n", cutLines, 0, 0},
		{"MaxLines without a last line end", Spec{Format: "govet", Failed: true}, strings.Repeat("\n", maxLines-1) + "x.go:1: boom", "", 1, 0},
		{"MaxBytes", Spec{Format: "govet"}, strings.Repeat(strings.Repeat(" ", 1023)+"\n", maxBytes>>10), "", 0, 0},
		{"one byte more", Spec{Format: "govet"}, strings.Repeat(strings.Repeat(" ", 1023)+"\n", maxBytes>>10) + "x", cutBytes, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Dir = "."
			r := Parse(tt.spec, strings.NewReader(tt.out))
			if r.Cut != tt.cut || r.Truncated != (tt.cut != "") {
				t.Errorf("cut %q (truncated %v), want %q", r.Cut, r.Truncated, tt.cut)
			}
			if len(r.Findings) != tt.findings || len(r.Stops) != tt.stops {
				t.Errorf("%d findings and %d stops, want %d and %d", len(r.Findings), len(r.Stops), tt.findings, tt.stops)
			}
			if tt.cut == "" {
				if want := referenceParse(tt.spec, strings.NewReader(tt.out)); !equalResults(r, want) {
					t.Errorf("within the bounds, Parse and the reference differ")
				}
			}
		})
	}
}

// equalResults compares two results field by field.
func equalResults(a, b Result) bool {
	if a.Format != b.Format || a.Truncated != b.Truncated || a.Cut != b.Cut || a.Problem != b.Problem ||
		len(a.Findings) != len(b.Findings) || len(a.Stops) != len(b.Stops) {
		return false
	}
	for i := range a.Findings {
		if a.Findings[i] != b.Findings[i] {
			return false
		}
	}
	for i := range a.Stops {
		if a.Stops[i] != b.Stops[i] {
			return false
		}
	}
	return true
}

// TestMaxBefore: streamSniffed keeps maxBefore lines above a line that can
// start a sniffer's part; no sniffer starts its part further above.
func TestMaxBefore(t *testing.T) {
	for _, s := range sniffers() {
		if s.before > maxBefore {
			t.Errorf("%s: its part starts %d lines above its start line, more than maxBefore (%d)", s.format, s.before, maxBefore)
		}
	}
}

// TestSnifferMay: every line a sniffer's start matches passes its may, on
// lines generated from the start's expression and on the corpus's lines
// (a may that failed one would keep a format from being recognised).
func TestSnifferMay(t *testing.T) {
	for _, s := range sniffers() {
		t.Run(s.format, func(t *testing.T) {
			for _, out := range corpusLines(t) {
				for _, l := range out {
					if l = stripANSI(l); s.start.MatchString(l) && !s.may(l) {
						t.Errorf("the start matches %q, may does not", l)
					}
				}
			}
			rapid.Check(t, func(t *rapid.T) {
				l := rapid.StringMatching(s.start.String()).Draw(t, "line")
				if s.start.MatchString(l) && !s.may(l) {
					t.Fatalf("the start matches %q, may does not", l)
				}
			})
		})
	}
}
