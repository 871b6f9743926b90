package run

import (
	"errors"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
)

// Every stage returns its value and an error; an error ends the run, and
// ended makes its result. Besides errors, a stage may stop the run: there
// is nothing to do (no changes, no applicable gates) or the run is refused
// (the retry limit).

// stop ends a run before its gates without an error.
type stop struct {
	status outcome.GauntletStatus
	// line is printed; message is the result's ErrorMessage ("" for none)
	// and consoleLog its ConsoleLogPath.
	line       string
	message    string
	consoleLog string
	// unverified is the result's Unverified: what the stop leaves
	// unjudged ("" for nothing said).
	unverified string
}

// Error is the stop's line.
func (s *stop) Error() string { return s.line }

// The stops of a run with nothing to do.
var (
	stopNoChanges = &stop{status: outcome.StatusNoChanges, line: LineNoChanges}
	stopNoGates   = &stop{status: outcome.StatusNoApplicableGates, line: LineNoApplicableGates}
)

// configError is an error of the configuration or of the command line
// that kept a run from starting (no or an invalid configuration, an
// unknown -g gate, a --working-directory outside the project, the
// caller's Precheck): the result carries it in ConfigErr, unprinted, for
// the CLI to print and exit 2.
type configError struct{ err error }

// Error is the error's own.
func (e *configError) Error() string { return e.err.Error() }

// Unwrap returns the error.
func (e *configError) Unwrap() error { return e.err }

// verdict is what an error that ended a run makes of the run.
type verdict struct {
	status outcome.GauntletStatus
	// configErr is the error the result carries in ConfigErr (nil: none).
	configErr error
	// line is what the console prints ("" for nothing).
	line string
}

// judge is the one place an error becomes a status. A stop is its status
// and line. A configuration or command-line error, and a usage error (see
// scope.IsUsageError: a revision that names nothing, a base branch that
// does not exist, a repository git refuses), is returned unprinted in
// ConfigErr: no_config without a project, infrastructure_error for a
// repository git refuses (the stop hook approves; nothing the agent can
// fix), error otherwise. A lock another run holds is lock_exists; git
// missing or failing, and a file system that cannot take a write (full,
// over quota, read-only), infrastructure_error: nothing the agent can fix
// in the work tree; anything else, error; each printed.
func judge(err error) verdict {
	var st *stop
	var ce *configError
	var held *lock.HeldError
	switch {
	case errors.As(err, &st):
		return verdict{status: st.status, line: st.line}
	case errors.As(err, &ce):
		if errors.Is(ce.err, config.ErrNotFound) {
			return verdict{status: outcome.StatusNoConfig, configErr: ce.err}
		}
		return verdict{status: outcome.StatusError, configErr: ce.err}
	case scope.IsUsageError(err):
		if errors.Is(err, git.ErrRepository) {
			return verdict{status: outcome.StatusInfrastructureError, configErr: err}
		}
		return verdict{status: outcome.StatusError, configErr: err}
	case errors.As(err, &held):
		return verdict{status: outcome.StatusLockExists, line: fmt.Sprintf(lineError, err)}
	case errors.Is(err, git.ErrGitMissing), errors.As(err, new(*git.CommandError)), fserr.Exhausted(err):
		return verdict{status: outcome.StatusInfrastructureError, line: fmt.Sprintf(lineError, err)}
	}
	return verdict{status: outcome.StatusError, line: fmt.Sprintf(lineError, err)}
}

// ended is the result of a run that err ended before its gates (judge),
// its line printed.
func (s *services) ended(err error) outcome.RunResult {
	v := judge(err)
	if v.line != "" {
		s.cons.Printf("%s", v.line)
	}
	res := outcome.RunResult{Status: v.status, ConfigErr: v.configErr}
	var st *stop
	switch {
	case errors.As(err, &st):
		res.ErrorMessage, res.ConsoleLogPath, res.Unverified = st.message, st.consoleLog, st.unverified
	case v.configErr != nil:
		res.ErrorMessage = v.configErr.Error()
	default:
		res.ErrorMessage = err.Error()
	}
	return res
}
