package findings

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads output line by line within the bounds of a result:
// at most MaxBytes and MaxLines in all, each line cut to MaxLineBytes (a
// longer line never stops the reading, as it would a bufio.Scanner), the
// line end ("\n" or "\r\n") dropped. Lines come in batches that share one
// allocation: reading costs an allocation per batchBytes, not per line.
type lineReader struct {
	br    *bufio.Reader
	read  int64
	lines int
	// cut says which bound was reached before the end ("" when none
	// was).
	cut string
	err error
	// buf holds the batch being read, ends the end of each of its lines.
	buf  []byte
	ends []int
}

// batchBytes is about how much output one batch holds.
const batchBytes = 64 << 10

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// batch appends the next lines (about batchBytes of them) to dst; it
// appends none at the end (or on an error, kept in err).
func (l *lineReader) batch(dst []string) []string {
	l.buf, l.ends = l.buf[:0], l.ends[:0]
	for len(l.buf) < batchBytes && l.line() {
	}
	s, start := string(l.buf), 0
	for _, end := range l.ends {
		dst = append(dst, s[start:end])
		start = end
	}
	return dst
}

// line reads one line into buf; false at the end.
func (l *lineReader) line() bool {
	if l.err != nil || l.cut != "" {
		return false
	}
	if l.lines == bounds.lines {
		if _, err := l.br.Peek(1); err == nil {
			l.cut = cutLines
		} else {
			l.err = err
		}
		return false
	}
	start := len(l.buf)
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.read += int64(len(chunk))
		if room := MaxLineBytes - (len(l.buf) - start); room > 0 {
			l.buf = append(l.buf, chunk[:min(len(chunk), room)]...)
		}
		if l.read > bounds.bytes {
			l.cut, l.buf = cutBytes, l.buf[:start]
			return false
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			l.err = err
			if len(chunk) == 0 && len(l.buf) == start {
				return false
			}
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(l.buf[start:], []byte("\n")), []byte("\r"))
		l.buf = l.buf[:start+len(line)]
		l.ends = append(l.ends, len(l.buf))
		l.lines++
		return true
	}
}

// failure is the read error, nil at the end of the input.
func (l *lineReader) failure() error {
	if errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

// readLines reads every line of r within the bounds; cut says which was
// reached ("" when none was).
func readLines(r io.Reader) (lines []string, cut string, err error) {
	l := newLineReader(r)
	for {
		n := len(lines)
		if lines = l.batch(lines); len(lines) == n {
			return lines, l.cut, l.failure()
		}
	}
}
