// Package builtin holds the review prompts shipped inside the binary: a
// review file selects one with `builtin: <name>` in its front matter, and
// its own body, when it has one, is appended to it. Each prompt says what
// to look for, what not to report, and how to rank what it finds.
package builtin

import (
	"embed"
	"strings"
)

//go:embed prompts/*.md
var prompts embed.FS

// The built-in reviews, by the name a review file gives in `builtin:`.
const (
	CodeQuality   = "code-quality"
	Security      = "security"
	ErrorHandling = "error-handling"
	TestIntegrity = "test-integrity"
)

// names lists the built-in reviews in their documented order.
var names = []string{CodeQuality, Security, ErrorHandling, TestIntegrity}

// Names returns the built-in review names in their documented order.
func Names() []string { return append([]string(nil), names...) }

// List is the names joined by commas, for messages.
func List() string { return strings.Join(names, ", ") }

// Known reports whether name is a built-in review.
func Known(name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Prompt returns the prompt of the built-in review name; false for an
// unknown name.
func Prompt(name string) (string, bool) {
	if !Known(name) {
		return "", false
	}
	data, err := prompts.ReadFile("prompts/" + name + ".md")
	if err != nil {
		return "", false // unreachable: every name has its file (TestEveryNameHasAPrompt)
	}
	return string(data), true
}

// Summary is the first line of the built-in review name's prompt without
// its heading marker: what the review is about, for listings.
func Summary(name string) string {
	p, ok := Prompt(name)
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(p, "\n")
	return strings.TrimSpace(strings.TrimLeft(first, "# "))
}

// Compose is the prompt of a review that selects builtin (may be "") and
// has body (the review file's text after its front matter): the built-in
// prompt, then the body when it is not blank.
func Compose(builtin, body string) string {
	p, ok := Prompt(builtin)
	if !ok {
		return body
	}
	if strings.TrimSpace(body) == "" {
		return p
	}
	return strings.TrimRight(p, "\n") + "\n\n## Project-specific instructions\n\n" + strings.TrimLeft(body, "\n")
}
