package runner

import "github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"

// IsUsageError reports whether err (of ExecuteRun's ConfigErr or Detect) is
// the user's to fix before anything can run: a revision that names
// nothing (*RevisionError), a configured base branch that does not exist,
// or a repository git refuses. The CLI exits 2 for it, after one line.
func IsUsageError(err error) bool { return scope.IsUsageError(err) }

// RevisionError is a revision a run or Detect was given that names
// nothing: the commit to look at (-c) or the base branch (-b).
type RevisionError = scope.RevisionError
