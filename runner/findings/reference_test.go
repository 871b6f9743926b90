package findings

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/reviewdog/errorformat"
)

// referenceParse is Parse as it was before parsing stopped at the bounds
// of a result (commit 4e2d92e): every line of the output up to MaxBytes
// held as a string of its own, every line normalised whether or not the
// result had room for its finding. The per-format parsers are shared; the
// differential tests (reference_diff_test.go) hold the two to the same
// results on outputs within the bounds.
func referenceParse(spec Spec, output io.Reader) Result {
	format := spec.Format
	words, _ := commandWords(spec.Command)
	if format == FormatAuto {
		format = Recognize(spec.Command)
	}
	if !Known(format) {
		format = FormatText
	}
	n := NewNormalizer(spec.Roots...)
	r := Result{Format: format}
	var stops buildStops
	if p, ok := ownParsers[format]; ok {
		lines, cut, err := refReadLines(output)
		for _, l := range lines {
			stops.line(l)
		}
		if format == FormatText {
			refParseSniffed(lines, n, spec.Dir, &r)
		} else {
			p(lines, n, spec.Dir, &r)
		}
		if spec.Failed && !r.anyFailing() && format != FormatText {
			refParseText(lines, n, spec.Dir, &r)
		}
		if t := toolOf(words); t.name == "go test" && (format == FormatGoTest || format == FormatGoTestJSON) {
			goFailFast(t.args, &r)
		}
		r.Truncated = cut
		if err != nil {
			r.Problem = "read the output: " + err.Error()
		}
	} else {
		refStreamDiagnostics(format, output, n, spec, &stops, &r)
	}
	if len(spec.JUnit) > 0 {
		kept := r.Findings[:0]
		for _, f := range r.Findings {
			if f.Kind != KindTest {
				kept = append(kept, f)
			}
		}
		r.Findings = kept
		parseJUnit(spec.JUnit, n, spec.Dir, &r)
	}
	stops.add(words, &r)
	r.dedupDiagnostics()
	return r
}

func refStreamDiagnostics(format string, output io.Reader, n *Normalizer, spec Spec, stops *buildStops, r *Result) {
	l := refNewLineReader(output)
	var chunk, aside []string
	size, asideSize, asideCut, found := 0, 0, false, false
	for {
		line, ok := l.next()
		if ok {
			stops.line(line)
			if spec.Failed && !found && maybeErrorRE().MatchString(line) {
				if asideSize += len(line); asideSize > maxAsideBytes {
					asideCut = true
				} else {
					aside = append(aside, line)
				}
			}
			chunk = append(chunk, line)
			size += len(line) + 1
		}
		if len(chunk) > 0 && (!ok || len(chunk) >= chunkLines || size >= chunkBytes) {
			refScanChunk(efmFormats()[format], format, chunk, n, spec.Dir, r)
			chunk, size = chunk[:0], 0
			if !found && len(r.Findings) > 0 {
				found, aside = true, nil
			}
		}
		if !ok {
			break
		}
	}
	r.Truncated = l.cut
	if err := l.failure(); err != nil {
		r.Problem = "read the output: " + err.Error()
	}
	if spec.Failed && len(r.Findings) == 0 {
		refParseText(aside, n, spec.Dir, r)
		r.Truncated = r.Truncated || asideCut
	}
}

func refScanChunk(efm *errorformat.Errorformat, format string, lines []string, n *Normalizer, dir string, r *Result) {
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
		r.add(f)
	}
}

func refParseDiagnostics(format string, lines []string, n *Normalizer, dir string, r *Result) {
	efm := efmFormats()[format]
	for start := 0; start < len(lines); {
		end, size := start, 0
		for end < len(lines) && end-start < chunkLines && size < chunkBytes {
			size += len(lines[end]) + 1
			end++
		}
		refScanChunk(efm, format, lines[start:end], n, dir, r)
		start = end
	}
}

func refParseSniffed(lines []string, n *Normalizer, dir string, r *Result) {
	claimed := make([]bool, len(lines))
	formats := []string{FormatText}
	for _, s := range sniffers() {
		from, to, ok := refSpan(s, lines)
		if !ok {
			continue
		}
		formats = append(formats, s.format)
		if s.parse != nil {
			s.parse(lines[from:to], n, dir, r)
		} else {
			refParseDiagnostics(s.format, lines[from:to], n, dir, r)
		}
		for i := from; i < to; i++ {
			claimed[i] = true
		}
	}
	r.Format = strings.Join(formats, "+")
	rest := make([]string, 0, len(lines))
	for i, l := range lines {
		if !claimed[i] {
			rest = append(rest, l)
		}
	}
	refParseText(rest, n, dir, r)
}

func refSpan(s sniffer, lines []string) (from, to int, ok bool) {
	from = -1
	for i, l := range lines {
		if s.start.MatchString(refStripANSI(l)) {
			from = i
			break
		}
	}
	if from < 0 {
		return 0, 0, false
	}
	to = -1
	for i := len(lines) - 1; i >= from; i-- {
		l := refStripANSI(lines[i])
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

func refParseText(lines []string, n *Normalizer, dir string, r *Result) {
	for _, l := range lines {
		if f, ok := refTextFinding(l, n, dir); ok {
			r.add(f)
		}
	}
}

func refTextFinding(l string, n *Normalizer, dir string) (Finding, bool) {
	norm := n.Line(l)
	if norm == "" || IsSummary(norm) {
		return Finding{}, false
	}
	sev := SeverityWarning
	if IsErrorLine(norm) {
		sev = SeverityError
	}
	msg := strings.TrimSpace(n.relative(refStripANSI(l)))
	f := Finding{Kind: KindLine, Severity: sev, Message: msg}
	if m := lineLocationRE().FindStringSubmatch(msg); m != nil {
		f.File, f.Line = n.Path(dir, m[1]), atoi(m[2])
	}
	return f, true
}

func refStripANSI(s string) string { return ansiRE().ReplaceAllString(s, "") }

type refLineReader struct {
	br   *bufio.Reader
	read int64
	cut  bool
	err  error
}

func refNewLineReader(r io.Reader) *refLineReader {
	return &refLineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

func (l *refLineReader) next() (line string, ok bool) {
	if l.err != nil || l.cut {
		return "", false
	}
	var buf []byte
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.read += int64(len(chunk))
		if room := MaxLineBytes - len(buf); room > 0 {
			buf = append(buf, chunk[:min(len(chunk), room)]...)
		}
		if l.read > bounds.bytes {
			l.cut = true
			return "", false
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				l.err = err
			} else {
				l.err = io.EOF
			}
			if len(chunk) == 0 && len(buf) == 0 {
				return "", false
			}
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		return string(buf), true
	}
}

func (l *refLineReader) failure() error {
	if errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

func refReadLines(r io.Reader) (lines []string, cut bool, err error) {
	l := refNewLineReader(r)
	for {
		line, ok := l.next()
		if !ok {
			return lines, l.cut, l.failure()
		}
		lines = append(lines, line)
	}
}
