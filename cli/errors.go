package cli

import (
	"errors"
	"fmt"
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

// ExitError is an error that carries the process exit code. A nil Err means
// the command already said everything it had to say.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the message of the wrapped error.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns the process exit code.
func (e *ExitError) ExitCode() int { return e.Code }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var coder interface{ ExitCode() int }
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	return ExitFailure
}

// usageError marks err as a usage or configuration error (exit 2).
func usageError(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// silentExit ends a command with code and no further message.
func silentExit(code int) error { return &ExitError{Code: code} }
