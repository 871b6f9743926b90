// Package jsonc reads a settings file as a client that accepts more than
// strict JSON reads it (a byte order mark, // and /* */ comments), and
// tells what such a file holds besides JSON, so that a rewrite can keep
// its form (line endings, byte order mark) or refuse to drop comments.
package jsonc

import "bytes"

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Form is what a file holds besides its JSON.
type Form struct {
	// BOM: it starts with a UTF-8 byte order mark.
	BOM bool
	// CRLF: its lines end with \r\n.
	CRLF bool
	// Comments: it holds // or /* */ comments (outside strings).
	Comments bool
}

// FormOf tells data's form.
func FormOf(data []byte) Form {
	_, f := Strip(data)
	return f
}

// Strip returns data without a leading byte order mark and with its
// comments blanked out (each comment byte but newlines turned into a
// space, so offsets in errors stay right), and the form it found. Strings
// are kept as written, // inside them included.
func Strip(data []byte) ([]byte, Form) {
	var f Form
	if rest, ok := bytes.CutPrefix(data, bom); ok {
		f.BOM, data = true, rest
	}
	f.CRLF = bytes.Contains(data, []byte("\r\n"))
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			f.Comments = true
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			f.Comments = true
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for j := i; j < stop; j++ {
				if out[j] != '\n' && out[j] != '\r' {
					out[j] = ' '
				}
			}
			i = stop - 1
		}
	}
	return out, f
}

// Restore gives pretty-printed JSON (\n line ends, no byte order mark) the
// line ends and byte order mark of form f.
func Restore(data []byte, f Form) []byte {
	if f.CRLF {
		data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	}
	if f.BOM {
		data = append(bytes.Clone(bom), data...)
	}
	return data
}
