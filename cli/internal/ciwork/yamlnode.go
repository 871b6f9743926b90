package ciwork

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A small builder over yaml.Node: the workflow is built as a node tree and
// encoded, so every user string is quoted by the encoder, never by hand, and
// keys keep the order GitHub's documentation uses.

// str is a string scalar (quoted by the encoder when it needs quotes).
func str(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	if strings.Contains(v, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

// boolean is a true/false scalar.
func boolean(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}
}

// integer is an integer scalar.
func integer(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(v)}
}

// field is one key of a mapping; a nil value leaves the key out.
type field struct {
	key     string
	value   *yaml.Node
	comment string // head comment of the key, without "# "
}

// kv is a field without a comment.
func kv(key string, value *yaml.Node) field { return field{key: key, value: value} }

// mapping builds a block mapping of fields, in order.
func mapping(fields ...field) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		if f.value == nil {
			continue
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: f.key}
		if f.comment != "" {
			k.HeadComment = comment(f.comment)
		}
		m.Content = append(m.Content, k, f.value)
	}
	return m
}

// comment prefixes every line of text with "# ".
func comment(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("# "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// seq builds a block sequence.
func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// flowStrings builds a one-line sequence of strings: [a, b].
func flowStrings(items ...string) *yaml.Node {
	s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, it := range items {
		s.Content = append(s.Content, str(it))
	}
	return s
}

// encode renders a document with two-space indentation.
func encode(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	return b.Bytes(), nil
}
