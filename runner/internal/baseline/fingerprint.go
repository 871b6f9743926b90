// Package baseline tells a check's own failures from the ones its base
// branch already had (docs/baselines.md): a failed check with baseline: true runs
// again on the merge base, and when the base fails the same way (the same
// exit code, and every error line of the failure also printed there,
// normalised), the failure is pre-existing and does not block.
//
// Where the base result comes from is a Source: Worktrees runs the check
// in a temporary detached worktree of the base commit; a result cache can
// answer instead (Cached, with a Store) by implementing Source.
package baseline

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Bounds of a fingerprint: whatever a check prints, comparing costs at most
// this much memory.
const (
	// MaxLines is the most distinct error lines a fingerprint keeps; a
	// failure with more cannot be compared (and so is never pre-existing).
	MaxLines = 10_000
	// maxLineBytes is how much of one line is read; the rest is skipped.
	maxLineBytes = 8 << 10
	// shownRunes is how much of a line is kept to show.
	shownRunes = 200
)

// Fingerprint is how a check failed: its exit code and the set of its error
// lines, normalised (Normalizer.Line, IsErrorLine).
type Fingerprint struct {
	ExitCode int
	// lines maps the hash of each normalised error line to its text
	// (shortened).
	lines map[uint64]string
	// Overflow is true when there were more than MaxLines error lines.
	Overflow bool
}

// Lines returns how many distinct error lines the fingerprint holds.
func (f Fingerprint) Lines() int { return len(f.lines) }

// Texts returns the error lines, sorted (shortened to 200 characters).
func (f Fingerprint) Texts() []string {
	out := make([]string, 0, len(f.lines))
	for _, t := range f.lines {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Scan reads a failed check's output and fingerprints it.
func Scan(r io.Reader, exitCode int, n *Normalizer) (Fingerprint, error) {
	f := Fingerprint{ExitCode: exitCode, lines: map[uint64]string{}}
	br := bufio.NewReaderSize(r, maxLineBytes)
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line: keep its start, skip the rest.
			f.add(n.Line(string(raw)))
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
		} else if len(raw) > 0 {
			f.add(n.Line(string(raw)))
		}
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return f, fmt.Errorf("read the check's output: %w", err)
		}
	}
}

// add records a normalised line when it is an error line.
func (f *Fingerprint) add(line string) {
	if f.Overflow || !IsErrorLine(line) {
		return
	}
	h := fnv.New64a()
	h.Write([]byte(line))
	k := h.Sum64()
	if _, ok := f.lines[k]; ok {
		return
	}
	if len(f.lines) >= MaxLines {
		f.Overflow, f.lines = true, map[uint64]string{}
		return
	}
	f.lines[k] = shorten(line)
}

// shorten keeps the first shownRunes runes of s.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= shownRunes {
		return s
	}
	return string([]rune(s)[:shownRunes-1]) + "…"
}

// Comparison is what comparing a failure with its base says.
type Comparison struct {
	// PreExisting is true when the base fails the same way.
	PreExisting bool
	// Reason says why, in one line.
	Reason string
	// New are error lines the base does not print (at most maxNew).
	New []string
}

// maxNew bounds the new lines a Comparison lists.
const maxNew = 10

// Compare compares the fingerprint of a failure with that of the same
// check on the base. The failure is pre-existing when it exits with the
// same code and every one of its error lines is also printed on the base
// (the base may print more: fixing some of the old errors is no new
// failure). A failure with no error line, or too many to compare, is never
// pre-existing: nothing shows it is the same.
func Compare(cur, base Fingerprint) Comparison {
	switch {
	case cur.Overflow || base.Overflow:
		return Comparison{Reason: fmt.Sprintf("more than %d error lines: too many to compare with the base", MaxLines)}
	case len(cur.lines) == 0:
		return Comparison{Reason: "it prints no error line to compare with the base"}
	case cur.ExitCode != base.ExitCode:
		return Comparison{Reason: fmt.Sprintf("it exits with code %d, and with code %d on the base", cur.ExitCode, base.ExitCode)}
	}
	var fresh []string
	for k, t := range cur.lines {
		if _, ok := base.lines[k]; !ok {
			fresh = append(fresh, t)
		}
	}
	if len(fresh) > 0 {
		sort.Strings(fresh)
		reason := fmt.Sprintf("%d of its %d error lines are new: the base does not print them", len(fresh), len(cur.lines))
		if len(fresh) == 1 {
			reason = fmt.Sprintf("1 of its %d error lines is new: the base does not print it", len(cur.lines))
		}
		c := Comparison{Reason: reason}
		c.New = fresh[:min(len(fresh), maxNew)]
		return c
	}
	return Comparison{PreExisting: true, Reason: fmt.Sprintf("the base exits with code %d too and prints every one of its %d error lines", cur.ExitCode, len(cur.lines))}
}

// Normalizer rewrites an output line so that the same error reads the
// same in two runs of a check in different places and times.
type Normalizer struct {
	// roots are the directories replaced, longest first.
	roots []string
}

// NewNormalizer returns a Normalizer for a run whose checks work below the
// given roots (the project root, or the base worktree's): a path below one
// becomes relative to it. Symbolic links in the roots are resolved too.
func NewNormalizer(roots ...string) *Normalizer {
	seen := map[string]bool{}
	var all []string
	for _, r := range roots {
		for _, v := range []string{r, resolved(r)} {
			v = filepath.Clean(v)
			if v != "" && v != "." && v != "/" && !seen[v] {
				seen[v] = true
				all = append(all, v)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	return &Normalizer{roots: all}
}

func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}

// The normalisation rules, applied in this order (one source of truth: the
// page docs/baselines.md lists them).
var rules = sync.OnceValue(func() []rule {
	tmp := regexp.QuoteMeta(strings.TrimRight(filepath.Clean(os.TempDir()), "/"))
	return []rule{
		// ANSI escape sequences (colours).
		{regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`), ""},
		// Temporary directories: $TMPDIR, /tmp, /var/tmp, macOS's
		// /var/folders/.../T, each with the entry below it.
		{regexp.MustCompile(`(?:` + tmp + `|/private/var/folders/[^/\s]+/[^/\s]+/T|/var/folders/[^/\s]+/[^/\s]+/T|/var/tmp|/tmp)/[^/\s:'"()]+`), "<tmp>"},
		// Timestamps and times of day.
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`), "<time>"},
		{regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`), "<time>"},
		// Memory addresses and other hex numbers.
		{regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`), "0x<addr>"},
		// Durations: 0.02s, 1m30s, 150ms, 2.5µs, (0.00s).
		{regexp.MustCompile(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b`), "<dur>"},
		// Goroutine numbers in Go panics.
		{regexp.MustCompile(`\bgoroutine \d+\b`), "goroutine N"},
		// Line and column numbers: file.go:12:5, line 12, file.ts(12,5).
		{regexp.MustCompile(`:\d+`), ":N"},
		{regexp.MustCompile(`(?i)\b(line|col|column) \d+`), "$1 N"},
		{regexp.MustCompile(`\(\d+,\s*\d+\)`), "(N,N)"},
		// "./x" and "x" are the same file.
		{regexp.MustCompile(`(^|[\s(\[<"'=])\./`), "$1"},
		// Runs of blanks.
		{regexp.MustCompile(`\s+`), " "},
	}
})

type rule struct {
	re   *regexp.Regexp
	with string
}

// Line normalises one line of output: ANSI colours dropped, paths below
// the roots made relative to them, temporary directories, timestamps,
// addresses, durations, goroutine numbers and line and column numbers
// replaced by placeholders, "./" dropped, blanks folded, ends trimmed.
func (n *Normalizer) Line(s string) string {
	s = strings.TrimRight(s, "\r\n")
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r+"/", "")
		s = strings.ReplaceAll(s, r, ".")
	}
	for _, r := range rules() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return strings.TrimSpace(s)
}

// errorLineRE tells error lines from the rest of the output (progress,
// "ok" lines of passing packages, headers): a line with a location
// (file.ext:N, line N, (N,N)) or a word that says something went wrong.
var errorLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[\w.-]\.[A-Za-z0-9]+:N|\bline N\b|\(N,N\)|` +
		`\b(?:errors?|err|fail(?:s|ed|ure|ures|ing)?|fatal|panic(?:ked)?|exception|traceback|warn(?:ing|ings)?|` +
		`assert(?:ion)?(?:error)?|undefined|cannot|can't|unable|invalid|not found|expected|violations?|denied|refused)\b|[✗✖×]`)
})

// IsErrorLine reports whether a normalised line tells of an error (see
// errorLineRE).
func IsErrorLine(line string) bool {
	return line != "" && errorLineRE().MatchString(line)
}
