package hookcmd

import "strings"

// simpleCommands splits a shell command line into its simple commands'
// words, as sh reads them: quotes and backslashes removed, comments
// dropped, split at ; & | && || newlines and parentheses, redirections
// (2>/dev/null, > file) left out. Expansions ($VAR, $(...)) stay as
// written; an unterminated quote ends the line.
func simpleCommands(s string) [][]string {
	var (
		out      [][]string
		words    []string
		word     strings.Builder
		inWord   bool
		redirect bool // the next word is a redirection's target
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch {
		case redirect:
			redirect = false
		default:
			words = append(words, w)
		}
	}
	endCommand := func() {
		endWord()
		redirect = false
		if len(words) > 0 {
			out = append(out, words)
		}
		words = nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					word.WriteByte(s[i])
					inWord = true
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				word.WriteString(s[i+1:])
				i = len(s)
				break
			}
			word.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				word.WriteByte(s[i])
			}
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			endCommand()
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '&' && inWord && strings.HasSuffix(word.String(), ">") {
				word.WriteByte(c) // 2>&1
				break
			}
			endCommand()
		case c == '>' || c == '<':
			// A redirection: its operator (with a file descriptor number
			// before it) and its target are no words of the command.
			if inWord && strings.Trim(word.String(), "0123456789") != "" {
				endWord()
			}
			word.Reset()
			inWord = false
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '<' || s[i+1] == '&' || s[i+1] == '|') {
				i++
			}
			// The target follows (2>&1 has it glued on).
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return out
}
