package findings

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/reviewdog/errorformat"
	"github.com/reviewdog/errorformat/fmts"
)

// ownPatterns are the errorformat patterns of the formats whose outputs
// the corpus (testdata/corpus) showed need more than errorformat's named
// ones: a message that wraps onto lines of its own (mypy's pretty output),
// code excerpts and counts that must not join the message (golangci-lint,
// mypy), go vet's type-checking errors ("vet: file:line:col: msg"), pylint
// and ruff, which errorformat does not name. Every other errorformat name
// is read with errorformat's own patterns.
var ownPatterns = map[string][]string{
	"govet": {`vet: %f:%l:%c: %m`, `%f:%l:%c: %m`, `%f:%l: %m`, `%-G%.%#`},
	"golangci-lint": {
		`%E%f:%l:%c: %m`, `%E%f:%l: %m`,
		`%-G%\d%\+ issues:`, `%-G* %.%#`, `%-G%\d%\+ issues.`, `%-C%.%#`,
	},
	"mypy": {
		`%E%f:%l:%c: error: %m`, `%E%f:%l: error: %m`,
		`%W%f:%l:%c: warning: %m`, `%W%f:%l: warning: %m`,
		`%I%f:%l:%c: note: %m`, `%I%f:%l: note: %m`,
		`%-GFound %.%#`, `%-GSuccess: %.%#`,
		`%-C %.%#`, `%C%m`,
	},
	"pylint": {`%-G*%\+ Module %.%#`, `%f:%l:%c: %m`, `%f:%l: %m`, `%-G%.%#`},
	"ruff":   {`%f:%l:%c: %m`, `%-G%.%#`},
	// text: no pattern matches; its error lines are read aside.
	FormatText: {`%-G%.%#`},
	"rustc": {
		`%Eerror[%.%#]: %m`, `%Eerror: %m`, `%Wwarning: %m`,
		`%C%\s%#--> %f:%l:%c`, `%-C%.%#`,
	},
}

// efmFormats are the diagnostic formats read with errorformat: ownPatterns
// and every errorformat name.
var efmFormats = sync.OnceValue(func() map[string]*errorformat.Errorformat {
	out := map[string]*errorformat.Errorformat{}
	for name, f := range fmts.DefinedFmts() {
		if efm, err := errorformat.NewErrorformat(f.Errorformat); err == nil {
			out[name] = efm
		}
	}
	for name, pats := range ownPatterns {
		efm, err := errorformat.NewErrorformat(pats)
		if err != nil {
			panic("findings: bad errorformat of " + name + ": " + err.Error()) // a test catches it
		}
		out[name] = efm
	}
	return out
})

// Bounds of one errorformat scan: errorformat joins a multi-line message
// by concatenation, which costs the square of its length, so the output
// is scanned in chunks (a message longer than a chunk is cut there).
const (
	chunkBytes = 64 << 10
	chunkLines = 1000
)

// parseDiagnostics reads lines with the errorformat of format into r, in
// chunks.
func parseDiagnostics(format string, lines []string, n *Normalizer, dir string, r *Result) {
	efm := efmFormats()[format]
	for start := 0; start < len(lines); {
		end, size := start, 0
		for end < len(lines) && end-start < chunkLines && size < chunkBytes {
			size += len(lines[end]) + 1
			end++
		}
		if !scanChunk(efm, format, lines[start:end], n, dir, r) {
			return
		}
		start = end
	}
}

// scanChunk reads one chunk of lines into r; false when r had no room
// for a finding (it stops there).
func scanChunk(efm *errorformat.Errorformat, format string, lines []string, n *Normalizer, dir string, r *Result) bool {
	s := efm.NewScanner(strings.NewReader(strings.Join(lines, "\n")))
	for s.Scan() {
		e := s.Entry()
		if !e.Valid {
			continue
		}
		f := Finding{Kind: KindDiagnostic, File: n.Path(dir, e.Filename), Line: max(e.Lnum, 0), Column: max(e.Col, 0),
			Severity: severityOf(e.Type), Message: dropSummaries(e.Text, n)}
		if e.Filename == "" {
			f.File = ""
		}
		ruleOf(format, e, &f)
		if strings.TrimSpace(f.Message) == "" && f.File == "" {
			continue
		}
		if !r.add(f) {
			return false
		}
	}
	return true
}

// dropSummaries removes from a multi-line message the lines that only
// count findings (a tool's closing line taken for a continuation).
func dropSummaries(msg string, n *Normalizer) string {
	if !strings.Contains(msg, "\n") {
		return strings.TrimRight(msg, " \t")
	}
	lines := strings.Split(msg, "\n")
	kept := lines[:1]
	for _, l := range lines[1:] {
		if !IsSummary(n.Line(l)) {
			kept = append(kept, l)
		}
	}
	return strings.TrimRight(strings.Join(kept, "\n"), " \t\n")
}

// severityOf maps an errorformat type to a severity: e error, w warning,
// i and n note; a tool that gives none reports errors.
func severityOf(t rune) Severity {
	switch unicode.ToLower(t) {
	case 'w':
		return SeverityWarning
	case 'i', 'n':
		return SeverityNote
	}
	return SeverityError
}

// Rule extraction, per format: where the tool puts its rule or code.
var (
	trailingParenRE   = regexp.MustCompile(`\s+\(([\w.-]+)\)$`)
	trailingBracketRE = regexp.MustCompile(`\s+\[([\w.-]+)\]$`)
	eslintRuleRE      = regexp.MustCompile(`\s{2,}(@?[\w./-]+)$`)
	leadingCodeRE     = regexp.MustCompile(`^([A-Z]+\d+)(?::|\s+(?:\[\*\]\s+)?)\s*`)
)

// ruleOf sets f's rule (and trims it from the message) the way format
// writes it; severities a format spells in its codes are set too.
func ruleOf(format string, e *errorformat.Entry, f *Finding) {
	switch format {
	case "golangci-lint", "staticcheck":
		if m := trailingParenRE.FindStringSubmatchIndex(firstLine(f.Message)); m != nil {
			f.Rule = f.Message[m[2]:m[3]]
			f.Message = f.Message[:m[0]] + f.Message[m[1]:]
		}
	case "mypy":
		if m := trailingBracketRE.FindStringSubmatch(f.Message); m != nil {
			f.Rule = m[1]
			f.Message = strings.TrimRight(strings.TrimSuffix(f.Message, m[0]), " ")
		}
	case "eslint", "eslint-compact":
		if m := eslintRuleRE.FindStringSubmatch(f.Message); m != nil {
			f.Rule = m[1]
			f.Message = strings.TrimSpace(strings.TrimSuffix(f.Message, m[0]))
		}
	case "tsc":
		if e.Nr > 0 {
			f.Rule = "TS" + strconv.Itoa(e.Nr)
		}
	case "flake8":
		if e.Type != 0 {
			f.Rule = string(e.Type) + strconv.Itoa(e.Nr)
			f.Severity = SeverityError
		}
	case "pylint", "ruff":
		if m := leadingCodeRE.FindStringSubmatch(f.Message); m != nil {
			f.Rule = m[1]
			f.Message = strings.TrimPrefix(f.Message, m[0])
			if format == "pylint" {
				f.Severity = pylintSeverity(m[1][0])
			}
		}
	}
}

// pylintSeverity maps pylint's message categories: fatal and error are
// errors, warnings warnings, conventions, refactorings and information
// notes.
func pylintSeverity(c byte) Severity {
	switch c {
	case 'F', 'E':
		return SeverityError
	case 'W':
		return SeverityWarning
	}
	return SeverityNote
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
