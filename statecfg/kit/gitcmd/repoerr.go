package gitcmd

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// ErrRepository is wrapped by every *RepoError.
var ErrRepository = errors.New("unusable git repository")

// RepoError is a repository git refuses to work in, whatever the command:
// the project is in no repository, or the repository belongs to another
// user and is not listed in safe.directory ("dubious ownership", common
// with Docker volumes). Its message is one line that names the problem
// and the fix.
type RepoError struct {
	// Dir is the repository (dubious ownership) or the directory git ran in.
	Dir string
	// Dubious is true for dubious ownership, false for no repository.
	Dubious bool
}

// Error names the problem and the fix.
func (e *RepoError) Error() string {
	if e.Dubious {
		return fmt.Sprintf("git refuses the repository at %s: it belongs to another user (\"dubious ownership\"); "+
			"if you trust it, run: git config --global --add safe.directory %s", e.Dir, e.Dir)
	}
	return fmt.Sprintf("%s is not in a git repository: agent-gauntlet needs git to find the changes; "+
		"run it inside a repository (git init creates one)", e.Dir)
}

// Unwrap returns ErrRepository.
func (e *RepoError) Unwrap() error { return ErrRepository }

// dubiousRE finds the repository in git's dubious-ownership message.
var dubiousRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`detected dubious ownership in repository at '([^'\n]*)'`)
})

// RepoProblem reads git's stderr for a repository it refuses to work in;
// nil when it says something else.
func RepoProblem(dir, stderr string) *RepoError {
	if m := dubiousRE().FindStringSubmatch(stderr); m != nil {
		return &RepoError{Dir: m[1], Dubious: true}
	}
	if strings.Contains(stderr, "dubious ownership") {
		return &RepoError{Dir: dir, Dubious: true}
	}
	if strings.Contains(stderr, "not a git repository") {
		return &RepoError{Dir: dir}
	}
	return nil
}
