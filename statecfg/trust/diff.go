package trust

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Diff is how a configuration differs from the trusted one, file by file
// (paths as in config.Files, sorted).
type Diff struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// Compare lists the files of work that trusted lacks (added), those of
// trusted that work lacks (removed) and those whose content differs
// (changed).
func Compare(trusted, work config.Files) Diff {
	var d Diff
	for _, p := range sortedPaths(work) {
		old, ok := trusted[p]
		switch {
		case !ok:
			d.Added = append(d.Added, p)
		case !bytes.Equal(old, work[p]):
			d.Changed = append(d.Changed, p)
		}
	}
	for _, p := range sortedPaths(trusted) {
		if _, ok := work[p]; !ok {
			d.Removed = append(d.Removed, p)
		}
	}
	return d
}

// Empty reports whether the two configurations are the same.
func (d Diff) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// String lists the differences in one line: "changed .gauntlet/a.yml;
// removed .gauntlet/b.md" (each path quoted when it holds anything a
// terminal does not print as itself).
func (d Diff) String() string {
	var parts []string
	for _, g := range []struct {
		verb  string
		paths []string
	}{{"changed", d.Changed}, {"removed", d.Removed}, {"added", d.Added}} {
		if len(g.paths) == 0 {
			continue
		}
		shown := make([]string, len(g.paths))
		for i, p := range g.paths {
			shown[i] = safeLine(p)
		}
		parts = append(parts, g.verb+" "+strings.Join(shown, ", "))
	}
	return strings.Join(parts, "; ")
}

// Limits of TextDiff.
const (
	// maxDiffCells bounds the table of the line diff (lines of the old
	// version times lines of the new one); larger files are summarised.
	maxDiffCells = 1 << 20
	// diffContext is the unchanged lines shown around a change.
	diffContext = 2
)

// TextDiff shows how the file at path changed from old to new (nil: the
// file is absent on that side) in the unified diff format, at most
// maxLines lines of it (then a line says how many more there are). Every
// line is safe to print on a terminal: a line holding control characters
// (an escape sequence that would hide or forge what the person reads) is
// shown quoted. Content that is not text, or too long to compare line by
// line, is summarised.
func TextDiff(path string, old, new []byte, maxLines int) []string {
	if old != nil {
		old = config.EntryText(old)
	}
	if new != nil {
		new = config.EntryText(new)
	}
	out := []string{"--- trusted " + safeLine(path), "+++ work tree " + safeLine(path)}
	switch {
	case old == nil:
		out[0] = "--- (not trusted before)"
	case new == nil:
		out[1] = "+++ (removed from the work tree)"
	}
	if !utf8.Valid(old) || !utf8.Valid(new) {
		return append(out, fmt.Sprintf("(binary content: %d bytes trusted, %d bytes in the work tree)", len(old), len(new)))
	}
	a, b := splitLines(old), splitLines(new)
	if len(a)*len(b) > maxDiffCells {
		return append(out, fmt.Sprintf("(too long to compare line by line: %d lines trusted, %d lines in the work tree)", len(a), len(b)))
	}
	body := hunks(lineDiff(a, b))
	if len(body) > maxLines {
		body = append(body[:maxLines], fmt.Sprintf("(%d more lines of diff)", len(body)-maxLines))
	}
	return append(out, body...)
}

// splitLines splits text into lines without their line breaks.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// op is one line of a line diff: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	line string
}

// lineDiff is a shortest edit script from a to b (longest common
// subsequence).
func lineDiff(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	return ops
}

// hunks renders the changed lines of ops with diffContext unchanged
// lines around them, a "@@" line starting each hunk.
func hunks(ops []op) []string {
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for k := max(i-diffContext, 0); k <= min(i+diffContext, len(ops)-1); k++ {
			show[k] = true
		}
	}
	var out []string
	oldLine, newLine := 1, 1
	for i, o := range ops {
		if show[i] && (i == 0 || !show[i-1]) {
			out = append(out, fmt.Sprintf("@@ -%d +%d @@", oldLine, newLine))
		}
		if show[i] {
			out = append(out, string(o.kind)+safeLine(o.line))
		}
		if o.kind != '+' {
			oldLine++
		}
		if o.kind != '-' {
			newLine++
		}
	}
	return out
}

// safeLine is s as it may be printed inside one line of a terminal:
// unchanged when it holds only printable characters (and tabs), else
// quoted as a Go string.
func safeLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return r == utf8.RuneError || (!unicode.IsPrint(r) && r != ' ' && r != '\t')
	}) < 0 {
		return s
	}
	return strconv.Quote(s)
}
