package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Method names the rule by which Extract found the review object.
type Method string

// The extraction rules, in the order Extract tries them.
const (
	// MethodFenced is a ```json fenced block.
	MethodFenced Method = "fenced block"
	// MethodBalanced is the last balanced JSON object that has a "status".
	MethodBalanced Method = "last JSON object with a status"
	// MethodSpan is the text from the first '{' to the last '}'.
	MethodSpan Method = "first { to last }"
)

// Review statuses a reviewer may answer.
const (
	StatusPass = "pass"
	StatusFail = "fail"
)

// DefaultPassMessage is the message of a pass without one.
const DefaultPassMessage = "Passed"

// ErrNoJSON is returned by Extract when the text holds no JSON object.
var ErrNoJSON = errors.New("no JSON object found in the reviewer output")

// ErrStatus is wrapped by Decode when "status" is missing or not pass/fail.
var ErrStatus = errors.New(`missing or invalid "status" field (want "pass" or "fail")`)

// maxCandidates bounds the '{' positions tried by the balanced scan, so that
// pathological output (thousands of unmatched braces) stays linear enough.
const maxCandidates = 4096

// fenced matches ```json blocks; the body is group 1.
var fenced = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?is)```json[ \\t]*\\r?\\n?(.*?)```") })

// Extracted is the review object found in a reviewer's answer.
type Extracted struct {
	// Object holds the top-level fields of the object.
	Object map[string]json.RawMessage
	// JSON is the object's text as found.
	JSON string
	// Method is the rule that found it.
	Method Method
}

// Extract finds the review object in a reviewer's answer: the first ```json
// fenced block that holds an object with a "status"; else the last balanced
// top-level JSON object with a "status" (braces inside JSON strings do not
// count); else the text from the first '{' to the last '}'; else, when some
// balanced object exists but none has a status, the last of them (so that
// Decode can say what is wrong). It returns ErrNoJSON when nothing parses.
func Extract(text string) (Extracted, error) {
	for _, m := range fenced().FindAllStringSubmatch(text, -1) {
		body := strings.TrimSpace(m[1])
		if obj, ok := object(body); ok && hasStatus(obj) {
			return Extracted{Object: obj, JSON: body, Method: MethodFenced}, nil
		}
	}
	objs := balancedObjects(text)
	for i := len(objs) - 1; i >= 0; i-- {
		if hasStatus(objs[i].Object) {
			return objs[i], nil
		}
	}
	if first, last := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); first >= 0 && last > first {
		body := text[first : last+1]
		if obj, ok := object(body); ok {
			return Extracted{Object: obj, JSON: body, Method: MethodSpan}, nil
		}
	}
	if len(objs) > 0 {
		return objs[len(objs)-1], nil
	}
	return Extracted{}, ErrNoJSON
}

// object parses s as exactly one JSON object (trailing text is an error).
func object(s string) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// hasStatus reports whether obj has a non-empty string "status".
func hasStatus(obj map[string]json.RawMessage) bool {
	var s string
	if err := json.Unmarshal(obj["status"], &s); err != nil {
		return false
	}
	return strings.TrimSpace(s) != ""
}

// balancedObjects returns the top-level JSON objects of text, left to right:
// at each '{' the matching '}' is found by a scanner that skips JSON strings;
// a span that parses is taken whole (its inner objects are not candidates),
// one that does not is skipped by one byte.
func balancedObjects(text string) []Extracted {
	var found []Extracted
	tried := 0
	for i := 0; i < len(text) && tried < maxCandidates; i++ {
		if text[i] != '{' {
			continue
		}
		tried++
		end := matchBrace(text, i)
		if end < 0 {
			continue
		}
		body := text[i : end+1]
		if obj, ok := object(body); ok {
			found = append(found, Extracted{Object: obj, JSON: body, Method: MethodBalanced})
			i = end
		}
	}
	return found
}

// matchBrace returns the index of the '}' closing the '{' at start, or -1.
func matchBrace(text string, start int) int {
	depth := 0
	inString, escaped := false, false
	for j := start; j < len(text); j++ {
		c := text[j]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// Review is a decoded review object.
type Review struct {
	// Status is StatusPass or StatusFail.
	Status string
	// Message is the pass message (DefaultPassMessage when absent).
	Message string
	// Violations are the raw elements of "violations".
	Violations []json.RawMessage
	// ViolationsArray is false when "violations" is missing or not an array.
	ViolationsArray bool
}

// Decode checks the review object's status and splits out its violations.
func Decode(obj map[string]json.RawMessage) (Review, error) {
	var status string
	if err := json.Unmarshal(obj["status"], &status); err != nil {
		return Review{}, ErrStatus
	}
	status = strings.ToLower(strings.TrimSpace(status))
	if status != StatusPass && status != StatusFail {
		return Review{}, fmt.Errorf("%w: got %q", ErrStatus, status)
	}
	r := Review{Status: status, Message: DefaultPassMessage}
	var msg string
	if json.Unmarshal(obj["message"], &msg) == nil && strings.TrimSpace(msg) != "" {
		r.Message = strings.TrimSpace(msg)
	}
	if raw, ok := obj["violations"]; ok && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if err := json.Unmarshal(raw, &r.Violations); err == nil {
			r.ViolationsArray = true
		}
	}
	return r, nil
}
