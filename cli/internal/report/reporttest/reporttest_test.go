package reporttest

import (
	"strings"
	"testing"
)

// The validators refuse what consumers would: each case breaks one rule.
func TestValidatorsRefuse(t *testing.T) {
	junit := func(suite string) string {
		return `<?xml version="1.0"?><testsuites tests="1" failures="1" errors="0" skipped="0">` + suite + `</testsuites>`
	}
	good := junit(`<testsuite name="s" tests="1" failures="1" errors="0" skipped="0"><testcase name="c" time="0.1"><failure message="m">x</failure></testcase></testsuite>`)
	if _, err := ValidateJUnit([]byte(good)); err != nil {
		t.Fatalf("a valid file refused: %v", err)
	}
	for name, doc := range map[string]string{
		"wrong root":            `<testsuite name="s" tests="0"/>`,
		"unknown element":       junit(`<testsuite name="s" tests="1" failures="1"><testcase name="c"><oops/></testcase></testsuite>`),
		"children out of order": junit(`<testsuite name="s" tests="1" failures="1"><testcase name="c"><system-out>o</system-out><failure/></testcase></testsuite>`),
		"missing name":          junit(`<testsuite tests="1" failures="1"><testcase name="c"><failure/></testcase></testsuite>`),
		"bad time":              junit(`<testsuite name="s" tests="1" failures="1"><testcase name="c" time="1,5"><failure/></testcase></testsuite>`),
		"counts differ":         junit(`<testsuite name="s" tests="2" failures="1"><testcase name="c"><failure/></testcase></testsuite>`),
		"unknown attribute":     junit(`<testsuite name="s" tests="1" failures="1" flavour="x"><testcase name="c"><failure/></testcase></testsuite>`),
		"not XML":               `<testsuites>`,
	} {
		if _, err := ValidateJUnit([]byte(doc)); err == nil {
			t.Errorf("JUnit %s: accepted", name)
		}
	}

	sarifOK := `{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{"tool":{"driver":{"name":"x"}},"results":[]}]}`
	if err := ValidateSARIF([]byte(sarifOK)); err != nil {
		t.Fatalf("a valid SARIF refused: %v", err)
	}
	for name, doc := range map[string]string{
		"null suppression status": strings.Replace(sarifOK, `"results":[]`, `"results":[{"message":{"text":"m"},"suppressions":[{"kind":"external","status":null}]}]`, 1),
		"bad level":               strings.Replace(sarifOK, `"results":[]`, `"results":[{"message":{"text":"m"},"level":"high"}]`, 1),
		"no driver name":          strings.Replace(sarifOK, `"name":"x"`, `"version":"1"`, 1),
		"two runs":                strings.Replace(sarifOK, `"runs":[{`, `"runs":[{"tool":{"driver":{"name":"y"}}},{`, 1),
	} {
		if err := ValidateSARIF([]byte(doc)); err == nil {
			t.Errorf("SARIF %s: accepted", name)
		}
	}

	if err := ValidateJSON([]byte(`{"schema_version":1}`)); err == nil {
		t.Error("a JSON report lacking its keys was accepted")
	}
	if err := ValidateJSON([]byte(`{} {}`)); err == nil {
		t.Error("two JSON documents were accepted")
	}
}
