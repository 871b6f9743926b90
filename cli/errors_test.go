package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Every error is printed once, with one prefix, unless the command printed
// it; the exit code comes from ExitError alone.
func TestReport(t *testing.T) {
	invalid := &config.Errors{Problems: []config.Problem{{File: ".gauntlet/config.yml", Field: "max_retries", Message: "must be an integer"}},
		Warnings: []string{`.gauntlet/config.yml: unknown key "name" (ignored)`}}
	tests := []struct {
		name    string
		err     func(w *strings.Builder) error
		code    int
		printed string
	}{
		{"nil", func(*strings.Builder) error { return nil }, ExitOK, ""},
		{"plain error", func(*strings.Builder) error { return errors.New("boom\n") }, ExitFailure, "agent-gauntlet: boom\n"},
		{"usage error", func(*strings.Builder) error { return usageError(errors.New("bad flag")) }, ExitUsage, "agent-gauntlet: bad flag\n"},
		{"wrapped usage error", func(*strings.Builder) error { return fmt.Errorf("run: %w", usageError(errors.New("x"))) }, ExitUsage, "agent-gauntlet: run: x\n"},
		{"already printed", func(*strings.Builder) error { return exitPrinted(ExitFailure) }, ExitFailure, ""},
		{"no configuration: one line at the top", func(w *strings.Builder) error {
			return configError(w, &config.NotFoundError{Dir: "/p"})
		}, ExitUsage, "agent-gauntlet: no .gauntlet/config.yml found in /p or any parent directory up to the git top level\n"},
		{"invalid configuration: rendered by the command", func(w *strings.Builder) error { return configError(w, invalid) }, ExitUsage,
			"warning: .gauntlet/config.yml: unknown key \"name\" (ignored)\n.gauntlet/config.yml: max_retries: must be an integer\nValidation failed: 1 problem found.\n"},
	}
	for _, tt := range tests {
		var out strings.Builder
		err := tt.err(&out)
		if code := report(&out, err); code != tt.code || out.String() != tt.printed {
			t.Errorf("%s: code %d, printed %q; want %d, %q", tt.name, code, out.String(), tt.code, tt.printed)
		}
	}
}
