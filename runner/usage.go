package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// FlagError is a command-line value that names nothing: a --commit that is
// no commit of the repository, a --base-branch that is no branch or commit.
// It is a usage error (exit 2).
type FlagError struct {
	// Flag is the flag's long name ("--commit").
	Flag string
	// Value is the value given.
	Value string
	// Problem says what is wrong with it.
	Problem string
}

// Error names the flag, its value and the problem.
func (e *FlagError) Error() string { return fmt.Sprintf("%s %q %s", e.Flag, e.Value, e.Problem) }

// IsUsageError reports whether err (of ExecuteRun's ConfigErr, Detect or
// config.LoadProject) is the user's to fix before anything can run: a flag that
// names nothing (*FlagError), a configured base branch that does not exist,
// or a repository git refuses (no repository, "dubious ownership"). The
// CLI exits 2 for it, after one line.
func IsUsageError(err error) bool {
	var fe *FlagError
	var be *git.BaseBranchError
	return errors.As(err, &fe) || errors.As(err, &be) || errors.Is(err, git.ErrRepository)
}

// checkRefFlags checks the values of -c and -b: each must name a commit of
// the repository at root. A repository git refuses is returned as it is.
func checkRefFlags(ctx context.Context, root, commit, base string) error {
	if commit != "" {
		if strings.HasPrefix(commit, "-") {
			return &FlagError{Flag: "--commit", Value: commit, Problem: "is not a commit: it must not start with '-'"}
		}
		sha, err := git.ResolveCommit(ctx, root, commit)
		if err != nil {
			return err
		}
		if sha == "" {
			return &FlagError{Flag: "--commit", Value: commit, Problem: "names no commit in this repository"}
		}
	}
	if base != "" {
		if strings.HasPrefix(base, "-") {
			return &FlagError{Flag: "--base-branch", Value: base, Problem: "is not a branch: it must not start with '-'"}
		}
		_, err := git.ResolveBase(ctx, root, base)
		var be *git.BaseBranchError
		if errors.As(err, &be) {
			return &FlagError{Flag: "--base-branch", Value: base, Problem: "names no branch or commit in this repository"}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// usageResult is the result of a run that a usage error stopped (see
// IsUsageError), nil for any other error: nothing printed, the CLI prints
// the one line and exits 2; the stop hook approves (a repository git
// refuses is an infrastructure error to it, nothing the agent can fix).
func usageResult(err error) *RunResult {
	if !IsUsageError(err) {
		return nil
	}
	status := StatusError
	if errors.Is(err, git.ErrRepository) {
		status = StatusInfrastructureError
	}
	return &RunResult{Status: status, ErrorMessage: err.Error(), ConfigErr: err}
}
