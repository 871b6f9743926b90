package findings

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Normalizer rewrites an output line so that the same error reads the
// same in two runs of a check in different places and times.
type Normalizer struct {
	// roots are the directories replaced, longest first.
	roots []string
	// now tells the clock's timestamps from other dates.
	now time.Time
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
	return &Normalizer{roots: all, now: time.Now()}
}

func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}

// The normalisation rules, applied in this order (one source of truth:
// docs/findings.md lists them). Each rule has a guard that every line its
// expression changes passes (a substring, a digit, a run of hex digits):
// most lines pass few of them, and a regular expression costs more than
// the guard.
var rules = sync.OnceValue(func() []rule {
	tmp := strings.TrimRight(filepath.Clean(os.TempDir()), "/")
	return []rule{
		// ANSI escape sequences (colours).
		{holds("\x1b"), regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`), "", nil},
		// Temporary directories: $TMPDIR, /tmp, /var/tmp, macOS's
		// /var/folders/.../T, each with the entry below it.
		{holdsAny(tmp+"/", "/var/folders/", "/tmp/"), regexp.MustCompile(`(?:` + regexp.QuoteMeta(tmp) + `|/private/var/folders/[^/\s]+/[^/\s]+/T|/var/folders/[^/\s]+/[^/\s]+/T|/var/tmp|/tmp)/[^/\s:'"()]+`), "<tmp>", nil},
		// Timestamps of the clock (a date within a day or two of now;
		// another date says what failed) and times of day.
		{holds("-"), regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`), "", clockDate},
		{holds(":"), regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`), "<time>", nil},
		// Memory addresses (nine hex digits or more, as 64-bit ones
		// print: a shorter hex number, a flag or a mask, says what
		// failed); Java's default toString (Foo@1b2c3d4e), whose hash
		// code has up to 8 digits.
		{holds("0x"), regexp.MustCompile(`\b0x[0-9a-fA-F]{9,}\b`), "0x<addr>", nil},
		{holds("@"), regexp.MustCompile(`\b([A-Za-z_$][\w$]*)@[0-9a-fA-F]{1,8}\b`), "${1}@<hash>", nil},
		// Clocks as numbers (Unix seconds, milliseconds, microseconds,
		// nanoseconds near now). Other long numbers, UUIDs and digests
		// say what failed, and stay.
		{hexRun(10), regexp.MustCompile(`\b\d{10,19}\b`), "", clockNumber},
		// The numbers of processes, random-number seed, threads and workers,
		// and ephemeral ports (a well-known port says what failed);
		// pytest's numbered temporary directories; Java's pool threads;
		// temporary names (tmpab12cd).
		{hasDigit, regexp.MustCompile(`(?i)\b(pid|process|seed|port|thread|worker)([\s:=#-]+)(\d+)\b`), "", countedNumber},
		{holds("pytest-"), regexp.MustCompile(`\bpytest-\d+\b`), "pytest-N", nil},
		{holds("pool-"), regexp.MustCompile(`\bpool-\d+-thread-\d+\b`), "pool-N-thread-N", nil},
		{holds("tmp"), regexp.MustCompile(`\btmp[a-z0-9_]{6,}\b`), "<tmp>", nil},
		// Durations: 0.02s, 1m30s, 150ms, 2.5µs, (0.00s), and with a
		// blank or a word: 0.084 seconds, [15 ms], 0.74 s; PHPUnit's
		// Time: 00:00.011 and Memory: 4.00 MB.
		{hasDigit, regexp.MustCompile(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b`), "<dur>", nil},
		{hasDigit, regexp.MustCompile(`\b\d+(?:\.\d+)? (?:ns|us|µs|ms|s|secs?|seconds?|milliseconds?|minutes?)\b`), "<dur>", nil},
		{holds("Time: "), regexp.MustCompile(`\bTime: \d{2}:\d{2}(?:\.\d+)?`), "Time: <dur>", nil},
		{holds("Memory: "), regexp.MustCompile(`\bMemory: \d+(?:\.\d+)? ?[KMG]i?B\b`), "Memory: <mem>", nil},
		// Goroutine, thread and process numbers in panics.
		{holds("goroutine "), regexp.MustCompile(`\bgoroutine \d+\b`), "goroutine N", nil},
		{holds("thread '"), regexp.MustCompile(`\b(thread '[^']*') \(\d+\)`), "$1 (N)", nil},
		// Line and column numbers: file.go:12:5, line 12, file.ts(12,5).
		{holds(":"), regexp.MustCompile(`:\d+`), ":N", nil},
		{hasDigit, regexp.MustCompile(`(?i)\b(line|col|column) \d+`), "$1 N", nil},
		{holds("("), regexp.MustCompile(`\(\d+,\s*\d+\)`), "(N,N)", nil},
		// "./x" and "x" are the same file.
		{holds("./"), regexp.MustCompile(`(^|[\s(\[<"'=])\./`), "$1", nil},
		// Runs of blanks (a single space stays as it is).
		{func(s string) bool { return strings.ContainsAny(s, "\t\n\f\r") || strings.Contains(s, "  ") }, regexp.MustCompile(`\s+`), " ", nil},
	}
})

// clockSpan is how far from now a date or a number read as a time is
// the clock's (a run's two sides run within it), not a value under test.
const clockSpan = 48 * time.Hour

// nearNow reports whether t is within clockSpan of now.
func nearNow(t, now time.Time) bool {
	d := t.Sub(now)
	return d < clockSpan && d > -clockSpan
}

// clockDate is "<time>" for a timestamp dated near now, else the
// timestamp.
func clockDate(m []string, now time.Time) string {
	t, err := time.Parse("2006-01-02", m[0][:10])
	if err == nil && nearNow(t, now.Truncate(24*time.Hour)) {
		return "<time>"
	}
	return m[0]
}

// clockNumber is "<time>" for a number that reads as a Unix time near
// now (in seconds, milliseconds, microseconds or nanoseconds), else the
// number.
func clockNumber(m []string, now time.Time) string {
	v, err := strconv.ParseInt(m[0], 10, 64)
	if err != nil {
		return m[0]
	}
	var t time.Time
	switch len(m[0]) {
	case 10:
		t = time.Unix(v, 0)
	case 13:
		t = time.UnixMilli(v)
	case 16:
		t = time.UnixMicro(v)
	case 19:
		t = time.Unix(0, v)
	default:
		return m[0]
	}
	if nearNow(t, now) {
		return "<time>"
	}
	return m[0]
}

// firstEphemeral is the lowest port an operating system hands out for
// a listener on port 0 (Linux's default range; IANA's starts higher).
const firstEphemeral = 32768

// countedNumber is "<word><sep>N" for the number after pid, process,
// seed, thread or worker, and after port when it is ephemeral.
func countedNumber(m []string, now time.Time) string {
	if strings.EqualFold(m[1], "port") {
		if p, err := strconv.Atoi(m[3]); err != nil || p < firstEphemeral {
			return m[0]
		}
	}
	return m[1] + m[2] + "N"
}

type rule struct {
	// guard is false for every line re leaves as it is (and for some
	// others).
	guard func(string) bool
	re    *regexp.Regexp
	with  string
	// fn, when set, replaces each match itself (given the match's
	// submatches and the time the normaliser was made), with instead.
	fn func(m []string, now time.Time) string
}

// holds is the guard of the lines that hold sub.
func holds(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// holdsAny is the guard of the lines that hold one of subs.
func holdsAny(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
}

// hasDigit is the guard of the lines with an ASCII digit (\d).
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// hexRun is the guard of the lines with n hex digits in a row.
func hexRun(n int) func(string) bool {
	return func(s string) bool {
		run := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' {
				if run++; run >= n {
					return true
				}
			} else {
				run = 0
			}
		}
		return false
	}
}

// Line normalises one line of output: ANSI colours dropped, paths below
// the roots made relative to them, temporary directories, timestamps,
// addresses, durations, goroutine and thread numbers and line and column
// numbers replaced by placeholders, "./" dropped, blanks folded, ends
// trimmed.
func (n *Normalizer) Line(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if strings.TrimSpace(s) == "" {
		return "" // what every rule would leave of it
	}
	s = n.relative(s)
	for _, r := range rules() {
		switch {
		case !r.guard(s):
		case r.fn != nil:
			s = r.re.ReplaceAllStringFunc(s, func(m string) string { return r.fn(r.re.FindStringSubmatch(m), n.now) })
		default:
			s = r.re.ReplaceAllString(s, r.with)
		}
	}
	return strings.TrimSpace(s)
}

// relative makes the paths below the roots in s relative to them.
func (n *Normalizer) relative(s string) string {
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r+"/", "")
		s = strings.ReplaceAll(s, r, ".")
	}
	return s
}

// Path makes a file name a tool printed relative to the project root:
// dir is the directory the check ran in, relative to the root ("." for
// the root). A path below a root loses it; a relative path is joined to
// dir; "./" and "a/../" are cleaned. A path outside every root stays as
// printed.
func (n *Normalizer) Path(dir, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		for _, r := range n.roots {
			if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	if dir == "" {
		dir = "."
	}
	return filepath.ToSlash(filepath.Join(dir, p))
}

// errorLineRE tells error lines from the rest of the output (progress,
// "ok" lines of passing packages, headers): a line with a location
// (file.ext:N, line N, (N,N)) or a word that says something went wrong.
var errorLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[\w.-]\.[A-Za-z0-9]+:N|\bline N\b|\(N,N\)|` +
		`\b(?:errors?|err|fail(?:s|ed|ure|ures|ing)?|fatal|panic(?:ked)?|exception|traceback|warn(?:ing|ings)?|` +
		`assert(?:ion)?(?:error)?|undefined|cannot|can't|unable|invalid|not found|expected|violations?|denied|refused)\b|[✗✖×●]`)
})

// IsErrorLine reports whether a normalised line tells of an error (see
// errorLineRE) and is no summary (IsSummary).
func IsErrorLine(line string) bool {
	return line != "" && errorLineRE().MatchString(line) && !IsSummary(line)
}

// summaryRE matches the lines that count or rate what a tool found rather
// than say what: they change whenever anything is added, passing or
// failing, so they are never findings. pytest's "== 1 failed, 2 passed in
// 0.02s ==", cargo's "test result: FAILED. 1 passed; 1 failed", jest's
// "Tests: 1 failed, 2 total", Surefire's "Tests run: 3, Failures: 1",
// mypy's "Found 2 errors in 1 file", eslint's "✖ 3 problems (2 errors, 1
// warning)", pylint's "rated at 8.75/10", go's "FAIL\tpkg\t0.01s", make's
// "Target 'x' not remade because of errors", and the like.
var summaryRE = sync.OnceValue(func() *regexp.Regexp {
	counted := `(?:passed|failed|failures?|errors?|warnings?|problems?|issues?|skipped|deselected|selected|xfailed|xpassed|` +
		`ignored|measured|filtered out|pending|todo|total|tests?|suites?|snapshots?|files?|items?|notes?|found|fixable|` +
		`rerun|flaky|obsolete|written|checked|succeeded|run)`
	return regexp.MustCompile(`(?i)` +
		`\b\d+(?:\.\d+)?\s+` + counted + `\b|` + // "3 failed", "2 errors", "1 file"
		`\b` + counted + `:\s+\d+\b|` + // "Tests run: 3", "Failures: 1"
		`\brated at\b|` +
		`^(?:FAIL|ok|PASS)(?:\s+\S+\s+(?:<dur>|\(cached\)|\[[^\]]*\])?)?$|` +
		`^=+\s.*\s=+$|^!{3,}|` +
		`^(?:\S+\.py\s+)?[.FEsxX]+\s+\[\s*\d+%\]$|` + // pytest's progress: a count in dots
		`^test result:|` +
		`\bnot remade because of errors\b|` +
		`^exit status \d+$|^error: \d+ targets? failed`)
})

// IsSummary reports whether a normalised line only counts or rates
// findings (summaryRE), or names no place and says only that something
// failed somewhere: a line with a location (file.ext:N) is never one.
func IsSummary(line string) bool {
	if !maybeSummary(line) || locationRE().MatchString(line) {
		return false
	}
	return summaryRE().MatchString(line)
}

// maybeSummary is true for every line summaryRE matches (and some
// others): one with a digit, one that starts with "=" or "!", or with
// FAIL, ok, PASS or "test result:", or that says "rated at" or "not
// remade because of errors", in any case; a line that is not ASCII is
// left to summaryRE (Unicode folds letters ASCII does not).
func maybeSummary(line string) bool {
	if hasDigit(line) || strings.HasPrefix(line, "=") || strings.HasPrefix(line, "!") {
		return true
	}
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			return true
		}
	}
	lower := strings.ToLower(line)
	for _, p := range []string{"fail", "ok", "pass", "test result:"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return strings.Contains(lower, "rated at") || strings.Contains(lower, "not remade because of errors")
}

// locationRE matches a normalised file location: name.ext:N.
var locationRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\w.-]\.[A-Za-z0-9]+:N`) })
