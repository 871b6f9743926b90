package config

import (
	"errors"
	"strings"
)

// frontMatterDelimiter opens and closes a review file's YAML front matter.
const frontMatterDelimiter = "---"

// errUnclosedFrontMatter is returned for a file that opens front matter and
// never closes it.
var errUnclosedFrontMatter = errors.New("front matter opened with --- on line 1 is never closed (add a line holding only ---)")

// frontMatter is a review file split into its parts.
type frontMatter struct {
	// YAML is the text between the delimiter lines ("" when absent or empty).
	YAML string
	// Body is everything after the closing delimiter line (the whole file
	// when there is no front matter).
	Body string
	// Present is true when the file opens with a --- line.
	Present bool
}

// splitFrontMatter splits content as gray-matter does: front matter is
// present when the first line is exactly --- (trailing blanks allowed); it
// ends at the next such line; the body follows that line. Line endings are
// normalized to \n and a UTF-8 byte order mark is dropped. A --- line in
// the body is body text.
func splitFrontMatter(content string) (frontMatter, error) {
	content = strings.TrimPrefix(content, "\ufeff")
	content = strings.ReplaceAll(content, "\r\n", "\n")
	first, rest, hasNewline := strings.Cut(content, "\n")
	if !isDelimiter(first) {
		return frontMatter{Body: content}, nil
	}
	if !hasNewline {
		return frontMatter{}, errUnclosedFrontMatter
	}
	var yamlLines []string
	for {
		line, after, more := strings.Cut(rest, "\n")
		if isDelimiter(line) {
			return frontMatter{YAML: strings.Join(yamlLines, "\n"), Body: after, Present: true}, nil
		}
		if !more {
			return frontMatter{}, errUnclosedFrontMatter
		}
		yamlLines = append(yamlLines, line)
		rest = after
	}
}

func isDelimiter(line string) bool {
	return strings.TrimRight(line, " \t") == frontMatterDelimiter
}
