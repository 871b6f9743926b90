package config

import (
	"fmt"
	"strings"
)

// shellContext is where a scan of a command stands: what the shell would
// make of the next character.
type shellContext int

const (
	// ctxPlain is unquoted text: the top level, a (...) subshell, a $(...)
	// command substitution or a `...` one.
	ctxPlain shellContext = iota
	// ctxSubst is the inside of $(...) or (...): unquoted, closed by ')'.
	ctxSubst
	// ctxBackquote is the inside of `...`: unquoted, closed by '`'.
	ctxBackquote
	ctxDoubleQuote
	ctxSingleQuote
	// ctxParam is the inside of ${...}.
	ctxParam
)

// wordBefore and wordAfter are the characters that may stand right before
// and right after ${CHANGED_FILES} for it to be a word of its own (or
// several, once replaced).
const (
	wordBefore = " \t\n;&|(`"
	wordAfter  = " \t\n;&|)<>`"
)

// placeholderProblem says why ${CHANGED_FILES} stands where its
// replacement (one single-quoted word per file) would not be a list of
// separate arguments, "" when every occurrence is fine. It must be a word
// of its own, outside quotes, outside ${...}, outside a comment and not in
// or after a here-document: there the quoted words would be taken as
// literal text, or re-read by the shell. Inside $(...) and `...` it is
// fine (their text is a command of its own). This is also what makes
// batching meaningful: each batch replaces it with some of the files.
func placeholderProblem(cmd string) string {
	const ph = ChangedFilesPlaceholder
	stack := []shellContext{ctxPlain}
	heredoc := false
	for i := 0; i < len(cmd); {
		top := stack[len(stack)-1]
		unquoted := top == ctxPlain || top == ctxSubst || top == ctxBackquote
		if strings.HasPrefix(cmd[i:], ph) {
			switch {
			case !unquoted:
				return fmt.Sprintf("%s must not stand inside quotes or ${...}: it becomes one quoted word per file", ph)
			case heredoc:
				return fmt.Sprintf("%s must not stand in or after a here-document (<<): its text is not split into words", ph)
			case i > 0 && !strings.ContainsRune(wordBefore, rune(cmd[i-1])),
				i+len(ph) < len(cmd) && !strings.ContainsRune(wordAfter, rune(cmd[i+len(ph)])):
				return fmt.Sprintf("%s must be a word of its own (blanks around it): it becomes one quoted word per file", ph)
			}
			i += len(ph)
			continue
		}
		c := cmd[i]
		switch top {
		case ctxSingleQuote:
			if c == '\'' {
				stack = stack[:len(stack)-1]
			}
			i++
			continue
		case ctxDoubleQuote:
			switch {
			case c == '\\':
				i += 2
				continue
			case c == '"':
				stack = stack[:len(stack)-1]
			case strings.HasPrefix(cmd[i:], "$("):
				stack = append(stack, ctxSubst)
				i += 2
				continue
			case strings.HasPrefix(cmd[i:], "${"):
				stack = append(stack, ctxParam)
				i += 2
				continue
			case c == '`':
				stack = append(stack, ctxBackquote)
			}
			i++
			continue
		case ctxParam:
			switch {
			case c == '}':
				stack = stack[:len(stack)-1]
			case strings.HasPrefix(cmd[i:], "${"):
				stack = append(stack, ctxParam)
				i += 2
				continue
			}
			i++
			continue
		}
		// Unquoted text.
		switch {
		case c == '\\':
			i += 2
			continue
		case c == '\'':
			stack = append(stack, ctxSingleQuote)
		case c == '"':
			stack = append(stack, ctxDoubleQuote)
		case strings.HasPrefix(cmd[i:], "$("), c == '(':
			stack = append(stack, ctxSubst)
			if c == '$' {
				i++
			}
		case strings.HasPrefix(cmd[i:], "${"):
			stack = append(stack, ctxParam)
			i++
		case c == ')' && top == ctxSubst, c == '`' && top == ctxBackquote:
			stack = stack[:len(stack)-1]
		case c == '`':
			stack = append(stack, ctxBackquote)
		case c == '#' && (i == 0 || strings.ContainsRune(" \t\n;&|(", rune(cmd[i-1]))):
			// A comment, to the end of the line.
			end := strings.IndexByte(cmd[i:], '\n')
			if end < 0 {
				end = len(cmd) - i
			}
			if strings.Contains(cmd[i:i+end], ph) {
				return fmt.Sprintf("%s must not stand in a comment", ph)
			}
			i += end
			continue
		case strings.HasPrefix(cmd[i:], "<<"):
			heredoc = true
			i += 2
			continue
		}
		i++
	}
	return ""
}
