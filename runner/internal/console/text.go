package console

import (
	"strconv"
	"strings"
	"unicode"
)

// Text makes a value from outside (a job id built from a directory name, a
// path, a reviewer's or an agent's words) safe to put inside one console
// line: when it holds a line break or any other control or non-printable
// character it is shown Go-quoted, so that it can never start a line of its
// own, such as a forged `Status: Passed`.
func Text(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// unsafeRune reports control characters, line and paragraph separators and
// other runes a terminal does not print as themselves.
func unsafeRune(r rune) bool {
	return r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' '
}
