package config

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigReport(t *testing.T) {
	errs := &Errors{
		Problems: []Problem{
			{File: ".gauntlet/config.yml", Field: "max_retries", Message: "must be an integer"},
			{File: ".gauntlet/checks/lint.yml", Field: "command", Message: "is required"},
		},
		Warnings: []string{`.gauntlet/config.yml: unknown key "name" (ignored)`},
	}
	var b strings.Builder
	WriteProblems(&b, errs)
	want := `warning: .gauntlet/config.yml: unknown key "name" (ignored)
.gauntlet/config.yml: max_retries: must be an integer
.gauntlet/checks/lint.yml: command: is required
Validation failed: 2 problems found.
`
	if b.String() != want {
		t.Errorf("WriteProblems =\n%s\nwant\n%s", b.String(), want)
	}
	one := &Errors{Problems: errs.Problems[:1]}
	if got := ErrorText(one); got != ".gauntlet/config.yml: max_retries: must be an integer\nValidation failed: 1 problem found." {
		t.Errorf("ErrorText = %q", got)
	}
	if got := ErrorText(errors.New("read x: denied")); got != "read x: denied" {
		t.Errorf("ErrorText = %q", got)
	}
}
