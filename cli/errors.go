package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Exit codes of the CLI.
const (
	// ExitOK is success.
	ExitOK = 0
	// ExitFailure is a failed run or a runtime error.
	ExitFailure = 1
	// ExitUsage is a usage or configuration error.
	ExitUsage = 2
)

// ExitError is the one error that carries an exit code: a command returns
// it to end with Code; any other error exits ExitFailure. Main prints Err
// once, unless it is errPrinted.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the message of the wrapped error.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns the process exit code.
func (e *ExitError) ExitCode() int { return e.Code }

// errPrinted marks an error whose messages the command has printed itself
// (a run's console, the lines of an invalid configuration): Main adds
// nothing.
var errPrinted = errors.New("error already printed")

// exitPrinted ends a command with code after it printed what it had to say.
func exitPrinted(code int) error { return &ExitError{Code: code, Err: errPrinted} }

// usageError marks err as a usage or configuration error (exit 2).
func usageError(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// report prints err once (unless already printed) and returns its exit
// code: an *ExitError's code, else ExitFailure.
func report(w io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	if !errors.Is(err, errPrinted) {
		fmt.Fprintf(w, "agent-gauntlet: %s\n", strings.TrimRight(err.Error(), "\n"))
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// configError ends a command whose configuration did not load (err as
// runner.LoadProject returns it, or a command-line error of a run): an
// invalid configuration is written to w as every command shows it (the
// warnings, every problem, the count); any other error is left to Main.
// Either way the command exits 2.
func configError(w io.Writer, err error) error {
	var errs *config.Errors
	if errors.As(err, &errs) {
		config.WriteProblems(w, errs)
		return exitPrinted(ExitUsage)
	}
	return usageError(err)
}

// flagError is a command-line value that names nothing: a --commit that is
// no commit of the repository, a --base-branch that is no branch or
// commit. It is a usage error (exit 2).
type flagError struct {
	// Flag is the flag's long name ("--commit").
	Flag string
	// rev is the runner's error about the revision it gave.
	rev *runner.RevisionError
}

// Error names the flag, its value and the problem.
func (e *flagError) Error() string {
	return fmt.Sprintf("%s %q %s", e.Flag, e.rev.Value, e.rev.Problem)
}

// Unwrap returns the runner's error.
func (e *flagError) Unwrap() error { return e.rev }

// spelled is err with a revision that names nothing
// (runner.RevisionError) named by the flag that gave it.
func spelled(err error) error {
	var rev *runner.RevisionError
	if !errors.As(err, &rev) {
		return err
	}
	flag := "--base-branch"
	if rev.Commit {
		flag = "--commit"
	}
	return &flagError{Flag: flag, rev: rev}
}
