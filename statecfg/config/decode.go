package config

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	goyaml "go.yaml.in/yaml/v2"
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
// []any, string, json.Number, bool, nil and nonFinite (for .inf, -.inf and
// .nan, which JSON cannot hold: they reach the field that holds them and
// get that field's error). Duplicate keys are errors. lineOffset is added
// to the line numbers of parser messages (front matter starts below the
// opening --- line).
//
// The parser is the YAML 1.1 one sigs.k8s.io/yaml uses (go.yaml.in/yaml/v2,
// strict), and the conversion follows sigs.k8s.io/yaml's YAMLToJSON (map
// keys become strings, numbers JSON numbers) without its JSON round trip,
// which failed the whole file on one non-finite number.
func parseYAML(data []byte, lineOffset int) (any, error) {
	var raw any
	if err := goyaml.UnmarshalStrict(data, &raw); err != nil {
		return nil, fmt.Errorf("%s", yamlMessage(err, lineOffset))
	}
	return generic(raw)
}

// nonFinite is a YAML float that JSON cannot represent: +Inf, -Inf or NaN.
type nonFinite float64

// generic converts a value of the YAML parser to parseYAML's types.
func generic(v any) (any, error) {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			key, err := mapKey(k)
			if err != nil {
				return nil, err
			}
			if m[key], err = generic(val); err != nil {
				return nil, err
			}
		}
		return m, nil
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			var err error
			if out[i], err = generic(val); err != nil {
				return nil, err
			}
		}
		return out, nil
	case int:
		return json.Number(strconv.Itoa(t)), nil
	case int64:
		return json.Number(strconv.FormatInt(t, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(t, 10)), nil
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return nonFinite(t), nil
		}
		return json.Number(jsonFloat(t)), nil
	case nil, string, bool:
		return t, nil
	}
	return nil, fmt.Errorf("unsupported value %v of type %T", v, v)
}

// mapKey renders a YAML map key as a string, as sigs.k8s.io/yaml does.
func mapKey(k any) (string, error) {
	switch t := k.(type) {
	case string:
		return t, nil
	case int:
		return strconv.Itoa(t), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case float64:
		switch s := strconv.FormatFloat(t, 'g', -1, 32); s {
		case "+Inf":
			return ".inf", nil
		case "-Inf":
			return "-.inf", nil
		case "NaN":
			return ".nan", nil
		default:
			return s, nil
		}
	case bool:
		return strconv.FormatBool(t), nil
	}
	return "", fmt.Errorf("unsupported map key %v of type %T", k, k)
}

// jsonFloat formats f as encoding/json does.
func jsonFloat(f float64) string {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

var lineNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlMessage turns a parser error into one line without the library's
// prefixes, shifting line numbers by offset.
func yamlMessage(err error, offset int) string {
	msg := err.Error()
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

// integer returns an integer value in [min, max], or nil.
func (o *object) integer(key string, min, max int) *int {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	n, isInt := asInt(v)
	if !isInt {
		o.errorf(key, msgInteger)
		return nil
	}
	switch {
	case n < min && min == 0:
		o.errorf(key, "must be a non-negative integer")
	case n < min:
		o.errorf(key, "must be an integer >= %d", min)
	case n > max:
		o.errorf(key, "must be at most %d", max)
	default:
		return &n
	}
	return nil
}

// positive returns a number value greater than zero and at most max
// (described by maxText, as in "1024 MB"), or nil. .inf is a number above
// any max; .nan is no number.
func (o *object) positive(key string, max float64, maxText string) *float64 {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			o.errorf(key, msgNumber)
			return nil
		}
	case nonFinite:
		f = float64(n)
	default:
		o.errorf(key, msgNumber)
		return nil
	}
	switch {
	case math.IsNaN(f):
		o.errorf(key, msgNumber)
	case f <= 0:
		o.errorf(key, msgPositive)
	case f > max:
		o.errorf(key, "must be at most %s", maxText)
	default:
		return &f
	}
	return nil
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
