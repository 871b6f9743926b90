package runner

import (
	"errors"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
)

// IsUsageError reports whether err (of ExecuteRun's ConfigErr or Detect) is
// the user's to fix before anything can run: a revision that names
// nothing (*RevisionError), a configured base branch that does not exist,
// or a repository git refuses. The CLI exits 2 for it, after one line.
func IsUsageError(err error) bool { return scope.IsUsageError(err) }

// RevisionError is a revision a run or Detect was given that names
// nothing: the commit to look at (-c) or the base branch (-b).
type RevisionError = scope.RevisionError

// usageResult is the result of a run that a usage error stopped (see
// IsUsageError), nil for any other error: nothing printed, the CLI prints
// the one line and exits 2; the stop hook approves (a repository git
// refuses is an infrastructure error to it, nothing the agent can fix).
func usageResult(err error) *RunResult {
	if !scope.IsUsageError(err) {
		return nil
	}
	status := StatusError
	if errors.Is(err, git.ErrRepository) {
		status = StatusInfrastructureError
	}
	return &RunResult{Status: status, ErrorMessage: err.Error(), ConfigErr: err}
}
