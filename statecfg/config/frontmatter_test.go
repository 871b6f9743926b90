package config

import (
	"errors"
	"testing"
)

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    frontMatter
		err     error
	}{
		{"no front matter", "Review it.\n", frontMatter{Body: "Review it.\n"}, nil},
		{"empty file", "", frontMatter{}, nil},
		{"empty front matter", "---\n---\nBody\n", frontMatter{Body: "Body\n", Present: true}, nil},
		{"front matter", "---\na: 1\nb: 2\n---\nBody\n", frontMatter{YAML: "a: 1\nb: 2", Body: "Body\n", Present: true}, nil},
		{"rule inside body", "---\na: 1\n---\nx\n---\ny\n", frontMatter{YAML: "a: 1", Body: "x\n---\ny\n", Present: true}, nil},
		{"rule in a body without front matter", "x\n---\ny: 1\n---\n", frontMatter{Body: "x\n---\ny: 1\n---\n"}, nil},
		{"CRLF", "---\r\na: 1\r\n---\r\nBody\r\nmore\r\n", frontMatter{YAML: "a: 1", Body: "Body\nmore\n", Present: true}, nil},
		{"byte order mark", "\ufeff---\na: 1\n---\nB", frontMatter{YAML: "a: 1", Body: "B", Present: true}, nil},
		{"trailing blanks on delimiters", "--- \na: 1\n---\t\nB", frontMatter{YAML: "a: 1", Body: "B", Present: true}, nil},
		{"closing delimiter at EOF", "---\na: 1\n---", frontMatter{YAML: "a: 1", Present: true}, nil},
		{"four dashes is not a delimiter", "----\na: 1\n----\nB", frontMatter{Body: "----\na: 1\n----\nB"}, nil},
		{"indented dashes is not a delimiter", " ---\nB", frontMatter{Body: " ---\nB"}, nil},
		{"YAML document end inside front matter", "---\na: 1\n...\n---\nB", frontMatter{YAML: "a: 1\n...", Body: "B", Present: true}, nil},
		{"unclosed", "---\na: 1\nbody\n", frontMatter{}, errUnclosedFrontMatter},
		{"only an opening line", "---", frontMatter{}, errUnclosedFrontMatter},
		{"only an opening line and newline", "---\n", frontMatter{}, errUnclosedFrontMatter},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := splitFrontMatter(tc.content)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("splitFrontMatter = %#v, want %#v", got, tc.want)
			}
		})
	}
}
