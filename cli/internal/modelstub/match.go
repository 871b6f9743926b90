package modelstub

import (
	"fmt"
	"regexp"
	"strings"
)

// MatchPrefix starts a reply that takes a value from the request it
// answers, so that a scripted model can act on what its client told it
// (the id of a violation in a stop hook's block reason, say):
//
//	with-match REGEXP
//	REPLY
//
// REGEXP is matched against the user messages of the request, newest
// first; every {{match}} in REPLY becomes its first group (the whole match
// when it has none). REPLY is then answered as any reply (text, or a
// tool_use). When nothing matches, the answer says so, so that the
// scenario fails where the client's request lacked the value.
const MatchPrefix = "with-match "

// matchPlaceholder is replaced by the match.
const matchPlaceholder = "{{match}}"

// resolveMatch returns reply with its match directive applied against the
// user texts of a request (newest first); any other reply unchanged.
func resolveMatch(reply string, userTexts []string) string {
	rest, ok := strings.CutPrefix(reply, MatchPrefix)
	if !ok {
		return reply
	}
	pattern, template, _ := strings.Cut(rest, "\n")
	re, err := regexp.Compile(strings.TrimSpace(pattern))
	if err != nil {
		return fmt.Sprintf("modelstub: bad with-match pattern: %v", err)
	}
	for _, text := range userTexts {
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		value := m[0]
		if len(m) > 1 {
			value = m[1]
		}
		return strings.ReplaceAll(template, matchPlaceholder, value)
	}
	return fmt.Sprintf("modelstub: with-match %s: no user message of the request matches", strings.TrimSpace(pattern))
}
