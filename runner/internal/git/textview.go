package git

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// File contents git calls binary (a NUL byte in the first 8000 bytes) are
// often text all the same: a source file with a stray NUL, a file saved as
// UTF-16. A reviewer is shown such a file as text: asText reads its bytes
// in the one encoding they make sense in, and escapes the control
// characters a terminal or a model would not show.

// encoding names how asText read a content.
type encoding string

// The encodings asText reads.
const (
	encUTF8      encoding = "UTF-8"
	encUTF8BOM   encoding = "UTF-8 with BOM"
	encUTF16LE   encoding = "UTF-16LE"
	encUTF16BE   encoding = "UTF-16BE"
	encUTF16LEBO encoding = "UTF-16LE with BOM"
	encUTF16BEBO encoding = "UTF-16BE with BOM"
)

// asText is content as text (ok), and the encoding it was read in; ok is
// false for content that is text in no encoding asText knows (an image, a
// compiled object).
func asText(content []byte) (text string, enc encoding, ok bool) {
	switch {
	case bytes.HasPrefix(content, []byte{0xFF, 0xFE}):
		text, ok = utf16Text(content[2:], false)
		return text, encUTF16LEBO, ok
	case bytes.HasPrefix(content, []byte{0xFE, 0xFF}):
		text, ok = utf16Text(content[2:], true)
		return text, encUTF16BEBO, ok
	case bytes.HasPrefix(content, []byte{0xEF, 0xBB, 0xBF}):
		if utf8.Valid(content[3:]) {
			return escapeControls(string(content[3:])), encUTF8BOM, true
		}
		return "", "", false
	}
	if be, ok := looksUTF16(content); ok {
		if text, ok := utf16Text(content, be); ok {
			if be {
				return text, encUTF16BE, true
			}
			return text, encUTF16LE, true
		}
	}
	if utf8.Valid(content) {
		return escapeControls(string(content)), encUTF8, true
	}
	return "", "", false
}

// looksUTF16 reports whether content without a byte order mark reads as
// UTF-16 of mostly ASCII text: an even length, and one byte of at least
// half the code units zero, the other seldom; be tells which byte.
func looksUTF16(content []byte) (be, ok bool) {
	n := len(content) / 2
	if n == 0 || len(content)%2 != 0 {
		return false, false
	}
	zeroEven, zeroOdd := 0, 0
	for i, b := range content {
		if b != 0 {
			continue
		}
		if i%2 == 0 {
			zeroEven++
		} else {
			zeroOdd++
		}
	}
	switch {
	case 2*zeroOdd >= n && 10*zeroEven <= n:
		return false, true
	case 2*zeroEven >= n && 10*zeroOdd <= n:
		return true, true
	}
	return false, false
}

// utf16Text decodes UTF-16 (big-endian when be) into escaped text; ok is
// false for an odd length, an unpaired surrogate, or text that is mostly
// control characters.
func utf16Text(content []byte, be bool) (string, bool) {
	if len(content)%2 != 0 {
		return "", false
	}
	units := make([]uint16, len(content)/2)
	for i := range units {
		hi, lo := content[2*i+1], content[2*i]
		if be {
			hi, lo = lo, hi
		}
		units[i] = uint16(hi)<<8 | uint16(lo)
	}
	runes := utf16.Decode(units)
	controls := 0
	for _, r := range runes {
		if r == utf8.RuneError {
			return "", false
		}
		if isHiddenControl(r) {
			controls++
		}
	}
	if 10*controls > len(runes) {
		return "", false
	}
	return escapeControls(string(runes)), true
}

// isHiddenControl reports whether r is a control character a diff would
// not show as itself (tab, newline and carriage return show).
func isHiddenControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7F
}

// escapeControls writes each hidden control character as \xNN, so that a
// NUL byte in a line is seen where it is and no line is cut or joined.
func escapeControls(s string) string {
	if strings.IndexFunc(s, isHiddenControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isHiddenControl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
