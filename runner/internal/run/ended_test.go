package run

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
)

// Every kind of error a stage returns, wrapped as the stages wrap them,
// becomes one status, is printed or handed to the caller, never both.
func TestJudge(t *testing.T) {
	notFound := &config.NotFoundError{Dir: "/p"}
	invalid := &config.Errors{Problems: []config.Problem{{File: ".gauntlet/config.yml", Message: "bad"}}}
	revision := &scope.RevisionError{Commit: true, Value: "nope", Problem: "names no commit in this repository"}
	refused := &git.RepoError{Dir: "/p", Dubious: true}
	retry := &stop{status: outcome.StatusRetryLimitExceeded, line: "Retry limit exceeded: run 4", message: "Retry limit exceeded: run 4", consoleLog: "/p/console.3.log"}
	tests := []struct {
		name      string
		err       error
		status    outcome.GauntletStatus
		configErr error
		printed   bool
	}{
		{"no changes", stopNoChanges, outcome.StatusNoChanges, nil, true},
		{"no applicable gates", stopNoGates, outcome.StatusNoApplicableGates, nil, true},
		{"the retry limit", retry, outcome.StatusRetryLimitExceeded, nil, true},
		{"no project", &configError{notFound}, outcome.StatusNoConfig, notFound, false},
		{"an invalid configuration", &configError{invalid}, outcome.StatusError, invalid, false},
		{"an unknown -g gate", &configError{errors.New(`no check gate named "x" in .gauntlet`)}, outcome.StatusError, nil, false},
		{"a revision that names nothing", revision, outcome.StatusError, revision, false},
		{"a base branch that does not exist", fmt.Errorf("list changes: %w", &git.BaseBranchError{Branch: "main"}), outcome.StatusError, nil, false},
		{"a repository git refuses", refused, outcome.StatusInfrastructureError, refused, false},
		{"a repository git refuses, found by auto-clean", fmt.Errorf("auto-clean: %w", refused), outcome.StatusInfrastructureError, nil, false},
		{"a lock another run holds", &lock.HeldError{Path: "/p/gauntlet_logs/.gauntlet-run.lock"}, outcome.StatusLockExists, nil, true},
		{"git missing", fmt.Errorf("%w: exec: not found", git.ErrGitMissing), outcome.StatusInfrastructureError, nil, true},
		{"git missing, found by auto-clean", fmt.Errorf("auto-clean: %w", fmt.Errorf("%w: x", git.ErrGitMissing)), outcome.StatusInfrastructureError, nil, true},
		{"git failing", fmt.Errorf("list changes: %w", &git.CommandError{Args: []string{"diff"}, Code: 128, Stderr: "fatal: bad object"}), outcome.StatusInfrastructureError, nil, true},
		{"a full disk", fmt.Errorf("acquire lock: %w", &fs.PathError{Op: "write", Path: "/p/l", Err: syscall.ENOSPC}), outcome.StatusInfrastructureError, nil, true},
		{"a file size limit", &fs.PathError{Op: "write", Path: "/p/console.1.log", Err: syscall.EFBIG}, outcome.StatusInfrastructureError, nil, true},
		{"anything else", errors.New("create log directory: permission denied"), outcome.StatusError, nil, true},
	}
	for _, tt := range tests {
		v := judge(tt.err)
		if v.status != tt.status {
			t.Errorf("%s: status %s, want %s", tt.name, v.status, tt.status)
		}
		if (v.line != "") != tt.printed || (v.configErr != nil) == tt.printed {
			t.Errorf("%s: line %q, ConfigErr %v: want printed %v, or handed to the caller", tt.name, v.line, v.configErr, tt.printed)
		}
		if tt.configErr != nil && v.configErr != tt.configErr {
			t.Errorf("%s: ConfigErr %v, want %v", tt.name, v.configErr, tt.configErr)
		}
	}
}

// A stop carries its message and console log into the result; an error's
// message is the error's, a configuration error's the error unwrapped.
func TestEnded(t *testing.T) {
	s := newServices(Options{Silent: true}, realDeps())
	retry := &stop{status: outcome.StatusRetryLimitExceeded, line: "l", message: "m", consoleLog: "c"}
	if res := s.ended(retry); res.ErrorMessage != "m" || res.ConsoleLogPath != "c" || res.ConfigErr != nil {
		t.Errorf("retry limit: %+v", res)
	}
	if res := s.ended(stopNoChanges); res.ErrorMessage != "" || res.Status != outcome.StatusNoChanges {
		t.Errorf("no changes: %+v", res)
	}
	inner := errors.New("no check gate named x")
	if res := s.ended(&configError{inner}); res.ConfigErr != inner || res.ErrorMessage != inner.Error() {
		t.Errorf("configuration error: %+v", res)
	}
	if res := s.ended(errors.New("boom")); res.ErrorMessage != "boom" || res.ConfigErr != nil {
		t.Errorf("error: %+v", res)
	}
}
