package config

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// The one rendering of configuration problems, used by every command
// (validate, run, check, review, detect, clean, list, health) and the stop
// hook:
//
//	warning: <file>: <field>: <message>
//	<file>: <field>: <message>
//	Validation failed: <n> problem(s) found.
//
// Warnings come first, one line each; an invalid configuration then lists
// every problem and ends with the count.

// warningPrefix starts every configuration warning line.
const warningPrefix = "warning: "

// WriteWarnings writes each configuration warning on its own line.
func WriteWarnings(w io.Writer, warnings []string) {
	for _, line := range warnings {
		fmt.Fprintf(w, "%s%s\n", warningPrefix, line)
	}
}

// WriteProblems writes an invalid configuration: its warnings, every
// problem on its own line, and the count.
func WriteProblems(w io.Writer, errs *Errors) {
	WriteWarnings(w, errs.Warnings)
	writeProblems(w, errs)
}

// writeProblems writes every problem of errs on its own line, then the
// count.
func writeProblems(w io.Writer, errs *Errors) {
	for _, line := range errs.Lines() {
		fmt.Fprintln(w, line)
	}
	noun := "problems"
	if len(errs.Problems) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(w, "Validation failed: %d %s found.\n", len(errs.Problems), noun)
}

// ErrorText is err, an error of LoadProject, as the detail of a message
// (the stop hook's): the problems and the count of an invalid
// configuration as WriteProblems writes them (without the warnings), else
// err's message.
func ErrorText(err error) string {
	var errs *Errors
	if !errors.As(err, &errs) {
		return err.Error()
	}
	var b strings.Builder
	writeProblems(&b, errs)
	return strings.TrimRight(b.String(), "\n")
}
