package hookproto

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Flag is a boolean field of a hook input read leniently: clients and
// wrappers send the loop signal as true, "true", 1 or "1". It is true when
// the value read as a Count is above zero: JSON true, a number of at least
// 1, a string holding one, or a word for true (true, t, yes, y, on, any
// case, blanks around); anything else (false, 0, null, other strings,
// objects) is false. Decoding never fails.
type Flag bool

// UnmarshalJSON reads data leniently; it never returns an error, so that one
// odd field never costs the rest of the input.
func (f *Flag) UnmarshalJSON(data []byte) error {
	*f = Flag(truthy(data))
	return nil
}

// Count is a non-negative count of a hook input read leniently: a number
// (fractions truncated, negatives and NaN read as 0, huge values capped), a
// string holding one ("1", " 2 "), or a boolean, as JSON or as a word (true
// is 1). Anything else is 0. Decoding never fails.
type Count int

// UnmarshalJSON reads data leniently; it never returns an error.
func (c *Count) UnmarshalJSON(data []byte) error {
	*c = Count(count(data))
	return nil
}

// truthy is the value of a JSON flag: a count above zero.
func truthy(data []byte) bool { return count(data) > 0 }

// count is the value of a JSON count: a number, true (1), or a string
// holding a number or a word for true (1) or false (0).
func count(data []byte) int {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("true")):
		return 1
	case len(data) > 0 && data[0] == '"':
		var s string
		if json.Unmarshal(data, &s) != nil {
			return 0
		}
		return word(strings.TrimSpace(s))
	}
	return number(string(data))
}

// word is the count a string says: a number, or 1 for a word meaning true
// (true, t, yes, y, on, any case).
func word(s string) int {
	switch strings.ToLower(s) {
	case "yes", "y", "on":
		return 1
	}
	if b, err := strconv.ParseBool(s); err == nil {
		if b {
			return 1
		}
		return 0
	}
	return number(s)
}

// maxCount caps a count: enough for any loop counter, small enough to stay
// an int everywhere.
const maxCount = math.MaxInt32

// number reads s as a number: its integer part, 0 when it is not a
// positive number, capped at maxCount.
func number(s string) int {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && v == 0 || math.IsNaN(v) || v <= 0 {
		return 0
	}
	if v >= maxCount {
		return maxCount
	}
	return int(v)
}
