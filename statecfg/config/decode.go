package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Messages shared by every field of the same kind (one source of truth, so
// the same mistake reads the same everywhere).
const (
	msgRequired    = "is required"
	msgString      = "must be a string"
	msgNonEmpty    = "must not be empty"
	msgBool        = "must be true or false"
	msgInteger     = "must be an integer"
	msgNumber      = "must be a number"
	msgPositive    = "must be a positive number"
	msgMapping     = "must be a mapping"
	msgList        = "must be a list"
	msgStringItem  = "must be a non-empty string"
	msgFileMapping = "must be a YAML mapping of keys to values"
)

// parseYAML converts YAML into a generic value built of map[string]any,
// []any, string, json.Number, bool and nil. Duplicate keys are errors.
// lineOffset is added to the line numbers of parser messages (front matter
// starts below the opening --- line).
func parseYAML(data []byte, lineOffset int) (any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("%s", yamlMessage(err, lineOffset))
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode converted YAML: %w", err)
	}
	return v, nil
}

var lineNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlMessage turns a parser error into one line without the library's
// prefixes, shifting line numbers by offset.
func yamlMessage(err error, offset int) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:")
	msg = strings.Join(strings.Fields(msg), " ")
	if offset != 0 {
		msg = lineNumberRE().ReplaceAllStringFunc(msg, func(m string) string {
			n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
			if err != nil {
				return m
			}
			return "line " + strconv.Itoa(n+offset)
		})
	}
	return msg
}

// collector gathers the problems and warnings of one load.
type collector struct {
	problems []Problem
	warnings []Problem
}

// file returns the report of problems found in the named file.
func (c *collector) file(name string) *fileReport { return &fileReport{c: c, name: name} }

// warningLines renders the warnings one line each.
func (c *collector) warningLines() []string {
	if len(c.warnings) == 0 {
		return nil
	}
	lines := make([]string, len(c.warnings))
	for i, w := range c.warnings {
		lines[i] = w.String()
	}
	return lines
}

// fileReport reports problems of one file and counts its errors.
type fileReport struct {
	c    *collector
	name string
	errs int
}

func (f *fileReport) errorf(field, format string, args ...any) {
	f.errs++
	f.c.problems = append(f.c.problems, Problem{File: f.name, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f *fileReport) warnf(field, format string, args ...any) {
	f.c.warnings = append(f.c.warnings, Problem{File: f.name, Field: field, Message: fmt.Sprintf(format, args...)})
}

// top returns the top-level mapping of a parsed file. An empty document is
// an empty mapping; anything else that is not a mapping is reported and
// gives nil.
func (f *fileReport) top(v any) *object {
	switch t := v.(type) {
	case nil:
		return &object{f: f, m: map[string]any{}, seen: map[string]bool{}}
	case map[string]any:
		return &object{f: f, m: t, seen: map[string]bool{}}
	}
	f.errorf("", msgFileMapping)
	return nil
}

// object is one YAML mapping being decoded. Every getter marks its key as
// known, reports a value of the wrong type against the field path, and
// treats null like an absent key.
type object struct {
	f    *fileReport
	path string
	m    map[string]any
	seen map[string]bool
}

// field returns the path of key inside o.
func (o *object) field(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

func (o *object) errorf(key, format string, args ...any) {
	o.f.errorf(o.field(key), format, args...)
}

// get returns the value of key; ok is false when it is absent or null.
func (o *object) get(key string) (v any, ok bool) {
	o.seen[key] = true
	v, ok = o.m[key]
	return v, ok && v != nil
}

// require reports key as missing unless it is set.
func (o *object) require(key string) bool {
	if _, ok := o.get(key); !ok {
		o.errorf(key, msgRequired)
		return false
	}
	return true
}

// str returns a string value.
func (o *object) str(key string) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		o.errorf(key, msgString)
		return "", false
	}
	return s, true
}

// nonEmpty returns a string value that is not blank.
func (o *object) nonEmpty(key string) (string, bool) {
	s, ok := o.str(key)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		o.errorf(key, msgNonEmpty)
		return "", false
	}
	return s, true
}

// enum returns a string value that is one of allowed.
func (o *object) enum(key string, allowed ...string) (string, bool) {
	s, ok := o.str(key)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	o.errorf(key, "must be one of %s (got %q)", strings.Join(allowed, ", "), s)
	return "", false
}

// setBool stores the bool at key in *dst when the key is set (a wrong type
// is reported by boolean).
func (o *object) setBool(key string, dst *bool) {
	if b := o.boolean(key); b != nil {
		*dst = *b
	}
}

// boolean returns a bool value, or nil.
func (o *object) boolean(key string) *bool {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	b, isBool := v.(bool)
	if !isBool {
		o.errorf(key, msgBool)
		return nil
	}
	return &b
}

// integer returns an integer value no smaller than min, or nil.
func (o *object) integer(key string, min int) *int {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	n, isInt := asInt(v)
	if !isInt {
		o.errorf(key, msgInteger)
		return nil
	}
	if n < min {
		if min == 0 {
			o.errorf(key, "must be a non-negative integer")
		} else {
			o.errorf(key, "must be an integer >= %d", min)
		}
		return nil
	}
	return &n
}

// positive returns a number value greater than zero, or nil.
func (o *object) positive(key string) *float64 {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		o.errorf(key, msgNumber)
		return nil
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		o.errorf(key, msgNumber)
		return nil
	}
	if f <= 0 {
		o.errorf(key, msgPositive)
		return nil
	}
	return &f
}

// strings returns a list of non-empty strings; ok is false when the key is
// absent or the value is not such a list (each bad item is reported).
func (o *object) strings(key string) ([]string, bool) {
	v, ok := o.get(key)
	if !ok {
		return nil, false
	}
	items, isList := v.([]any)
	if !isList {
		o.errorf(key, "must be a list of strings")
		return nil, false
	}
	out := make([]string, 0, len(items))
	good := true
	for i, it := range items {
		s, isStr := it.(string)
		if !isStr || strings.TrimSpace(s) == "" {
			o.f.errorf(fmt.Sprintf("%s[%d]", o.field(key), i), msgStringItem)
			good = false
			continue
		}
		out = append(out, s)
	}
	return out, good
}

// list returns a list value.
func (o *object) list(key string) ([]any, bool) {
	v, ok := o.get(key)
	if !ok {
		return nil, false
	}
	items, isList := v.([]any)
	if !isList {
		o.errorf(key, msgList)
		return nil, false
	}
	return items, true
}

// child returns the mapping under key, or nil when absent or not a mapping.
func (o *object) child(key string) *object {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	return o.sub(o.field(key), v)
}

// sub wraps v, found at path, as a mapping; nil (reported) if it is not one.
func (o *object) sub(path string, v any) *object {
	m, isMap := v.(map[string]any)
	if !isMap {
		o.f.errorf(path, msgMapping)
		return nil
	}
	return &object{f: o.f, path: path, m: m, seen: map[string]bool{}}
}

// done reports every key no getter asked for as an ignored unknown key.
func (o *object) done() {
	var unknown []string
	for k := range o.m {
		if !o.seen[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		o.f.warnf(o.path, "unknown key %q (ignored)", k)
	}
}

// asInt converts a decoded YAML number to an int when it is whole.
func asInt(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		if i > math.MaxInt || i < math.MinInt {
			return 0, false
		}
		return int(i), true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}
