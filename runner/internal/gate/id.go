package gate

import "strings"

// SanitizeID turns a job id into the stem of its log file names: every byte
// outside [a-zA-Z0-9._-] becomes '_' (check:src:lint → check_src_lint).
// A non-ASCII character becomes one '_' (upstream's JavaScript did so per
// UTF-16 unit, the same for every character outside the astral planes).
func SanitizeID(id string) string {
	var b strings.Builder
	b.Grow(len(id))
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// CheckID is the id of check gate name on entry point ep.
func CheckID(ep, name string) string { return string(KindCheck) + ":" + ep + ":" + name }

// ReviewID is the id of review gate name on entry point ep.
func ReviewID(ep, name string) string { return string(KindReview) + ":" + ep + ":" + name }
