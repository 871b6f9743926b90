package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func TestConfigReport(t *testing.T) {
	errs := &config.Errors{
		Problems: []config.Problem{
			{File: ".gauntlet/config.yml", Field: "max_retries", Message: "must be an integer"},
			{File: ".gauntlet/checks/lint.yml", Field: "command", Message: "is required"},
		},
		Warnings: []string{`.gauntlet/config.yml: unknown key "name" (ignored)`},
	}
	var b strings.Builder
	WriteConfigProblems(&b, errs)
	want := `warning: .gauntlet/config.yml: unknown key "name" (ignored)
.gauntlet/config.yml: max_retries: must be an integer
.gauntlet/checks/lint.yml: command: is required
Validation failed: 2 problems found.
`
	if b.String() != want {
		t.Errorf("WriteConfigProblems =\n%s\nwant\n%s", b.String(), want)
	}
	one := &config.Errors{Problems: errs.Problems[:1]}
	if got := ConfigErrorText(one); got != ".gauntlet/config.yml: max_retries: must be an integer\nValidation failed: 1 problem found." {
		t.Errorf("ConfigErrorText = %q", got)
	}
	if got := ConfigErrorText(errors.New("read x: denied")); got != "read x: denied" {
		t.Errorf("ConfigErrorText = %q", got)
	}
}
