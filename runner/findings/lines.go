package findings

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads output line by line within the bounds of a result:
// at most MaxBytes in all, each line cut to MaxLineBytes (a longer line
// never stops the reading, as it would a bufio.Scanner), the line end
// ("\n" or "\r\n") dropped.
type lineReader struct {
	br   *bufio.Reader
	read int64
	// cut is true when MaxBytes was reached before the end.
	cut bool
	err error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line; ok is false at the end (or on an error,
// kept in err).
func (l *lineReader) next() (line string, ok bool) {
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
		if l.read > MaxBytes {
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

// failure is the read error, nil at the end of the input.
func (l *lineReader) failure() error {
	if errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

// readLines reads every line of r within the bounds; cut reports that
// MaxBytes was reached.
func readLines(r io.Reader) (lines []string, cut bool, err error) {
	l := newLineReader(r)
	for {
		line, ok := l.next()
		if !ok {
			return lines, l.cut, l.failure()
		}
		lines = append(lines, line)
	}
}
