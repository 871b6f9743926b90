package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Required lists the violation fields without which a violation is dropped.
// ("fix" is optional: a reviewer may see a problem without a remedy; a
// missing "status" reads as "new".)
var Required = []string{"file", "line", "issue", "priority"}

// Priorities lists the priorities from the most to the least severe.
var Priorities = config.Priorities

// UnknownPriority is what a violation whose priority is not one of
// Priorities is kept as. Dropping it would hide a reported problem; ranking
// it above low would let a made-up word beat the rerun threshold.
const UnknownPriority = config.PriorityLow

// Rank orders priorities: critical 4, high 3, medium 2, low 1; anything else
// ranks as UnknownPriority.
func Rank(p string) int {
	switch config.Priority(strings.ToLower(strings.TrimSpace(p))) {
	case config.PriorityCritical:
		return 4
	case config.PriorityHigh:
		return 3
	case config.PriorityMedium:
		return 2
	}
	return 1
}

// NormalizePriority lower-cases a known priority; ok is false (and the
// result is UnknownPriority) for anything else.
func NormalizePriority(p string) (config.Priority, bool) {
	norm := config.Priority(strings.ToLower(strings.TrimSpace(p)))
	for _, known := range Priorities {
		if norm == known {
			return known, true
		}
	}
	return UnknownPriority, false
}

// Dropped is a reported violation that was not kept.
type Dropped struct {
	// Index is the 1-based position in the reviewer's list.
	Index int
	// Missing names the required fields that were absent or unusable.
	Missing []string
	// Raw is the violation as the reviewer wrote it.
	Raw string
}

// Checked is the outcome of CheckViolations.
type Checked struct {
	// Kept are the usable violations, normalized: Line is a positive int,
	// Priority one of Priorities, Status lower-case (default "new").
	Kept []gate.Violation
	// Dropped are the violations that lacked a required field.
	Dropped []Dropped
	// Notes describe normalizations a reader of the log should know about.
	Notes []string
}

// CheckViolations keeps the violations that carry every Required field and
// drops the others (the reviewer broke the contract; a violation without a
// file or line cannot be located, one without an issue cannot be acted on).
func CheckViolations(raws []json.RawMessage) Checked {
	var c Checked
	for i, raw := range raws {
		v, missing, note := checkOne(raw)
		if len(missing) > 0 {
			c.Dropped = append(c.Dropped, Dropped{Index: i + 1, Missing: missing, Raw: compact(raw)})
			continue
		}
		if note != "" {
			c.Notes = append(c.Notes, fmt.Sprintf("violation %d: %s", i+1, note))
		}
		c.Kept = append(c.Kept, v)
	}
	return c
}

// compact returns raw on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return strings.Join(strings.Fields(string(raw)), " ")
	}
	return b.String()
}

// checkOne decodes one violation and lists its missing required fields.
func checkOne(raw json.RawMessage) (gate.Violation, []string, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return gate.Violation{}, Required, ""
	}
	var v gate.Violation
	var missing []string
	var note string
	str := func(key string) (string, bool) {
		var s string
		if json.Unmarshal(fields[key], &s) != nil {
			return "", false
		}
		s = strings.TrimSpace(s)
		return s, s != ""
	}
	var ok bool
	// the file as written, blanks at its ends included: a name may end
	// with a space, and Paths.Canonical maps the spelling to the diff's.
	if json.Unmarshal(fields["file"], &v.File) != nil || strings.TrimSpace(v.File) == "" {
		v.File = ""
		missing = append(missing, "file")
	}
	if line, ok := LineNumber(rawValue(fields["line"])); ok {
		v.Line = line
	} else {
		missing = append(missing, "line")
	}
	if v.Issue, ok = str("issue"); !ok {
		missing = append(missing, "issue")
	}
	v.Fix, _ = str("fix")
	if p, ok := str("priority"); !ok {
		missing = append(missing, "priority")
	} else if norm, known := NormalizePriority(p); known {
		v.Priority = string(norm)
	} else {
		v.Priority = string(norm)
		note = fmt.Sprintf("unknown priority %q kept as %q", p, norm)
	}
	v.Status = gate.ViolationNew
	if s, ok := str("status"); ok {
		v.Status = strings.ToLower(s)
	}
	if r, ok := fields["result"]; ok {
		v.Result = rawValue(r)
	}
	return v, missing, note
}

// rawValue decodes raw into a generic value (nil when absent or invalid).
func rawValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// LineNumber reads a violation's line: a positive integral JSON number, or
// a string of digits. Anything else ("?", 0, 3.5, null) is not a line.
func LineNumber(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x >= 1 && x == math.Trunc(x) && x <= math.MaxInt32 {
			return int(x), true
		}
	case int:
		if x >= 1 {
			return x, true
		}
	case json.Number:
		return LineNumber(string(x))
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err == nil && n >= 1 {
			return n, true
		}
	}
	return 0, false
}

// LineText renders a violation's line for humans: the number, the string
// as stored, or "?".
func LineText(v any) string {
	if n, ok := LineNumber(v); ok {
		return strconv.Itoa(n)
	}
	if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	return "?"
}
