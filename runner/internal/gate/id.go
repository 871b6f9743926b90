package gate

import "strings"

// CheckID is the id of check gate name on entry point ep.
func CheckID(ep, name string) string { return string(KindCheck) + ":" + ep + ":" + name }

// ReviewID is the id of review gate name on entry point ep.
func ReviewID(ep, name string) string { return string(KindReview) + ":" + ep + ":" + name }

// KindOf is the kind of job id, the part before its first ':' ("" when it
// has none).
func KindOf(id string) Kind {
	kind, _, ok := strings.Cut(id, ":")
	if !ok {
		return ""
	}
	return Kind(kind)
}

// IsOfGate reports whether job id is gate name applied to some entry point:
// `<kind>:<entry point>:<name>`.
func IsOfGate(id, name string) bool {
	rest, ok := strings.CutSuffix(id, ":"+name)
	return ok && strings.Contains(rest, ":")
}
