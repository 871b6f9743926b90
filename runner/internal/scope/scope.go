// Package scope answers what a run or detect looks at: the change scope
// its flags and the environment choose, the revisions they name (checked
// before anything runs), and the changed paths it keeps (never the log
// directory's).
package scope

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// Spec is the change scope a run or detect asks for: one commit (-c), the
// uncommitted changes (-u), CI's range, or the local changes against base
// (up to head, GITHUB_SHA, in CI).
func Spec(base, commit string, uncommitted, ci bool, head string) gate.DiffSpec {
	spec := gate.DiffSpec{BaseBranch: base}
	switch {
	case commit != "":
		spec.Mode, spec.Commit = gate.DiffCommit, commit
	case uncommitted:
		spec.Mode = gate.DiffUncommitted
	case ci:
		spec.Mode, spec.Head = gate.DiffCI, head
	default:
		spec.Mode = gate.DiffLocal
	}
	return spec
}

// InsideRel returns dir relative to root (slash-separated) when dir lies
// strictly inside root, else "".
func InsideRel(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// WithoutDir drops the files at or below dir ("" keeps everything).
func WithoutDir(files []string, dir string) []string {
	if dir == "" {
		return files
	}
	kept := files[:0:0]
	for _, f := range files {
		if f != dir && !strings.HasPrefix(f, dir+"/") {
			kept = append(kept, f)
		}
	}
	return kept
}

// Union appends b's new entries to a.
func Union(a, b []string) []string {
	seen := make(map[string]bool, len(a))
	for _, f := range a {
		seen[f] = true
	}
	for _, f := range b {
		if !seen[f] {
			seen[f] = true
			a = append(a, f)
		}
	}
	return a
}

// RevisionError is a revision a run or detect was asked for that names
// nothing: the commit to look at (-c) or the base branch (-b). It is a
// usage error (IsUsageError); the CLI names the flag it came from.
type RevisionError struct {
	// Commit is true for the commit to look at, false for the base branch.
	Commit bool
	// Value is the revision given.
	Value string
	// Problem says what is wrong with it.
	Problem string
}

// Error names what the revision was for, its value and the problem.
func (e *RevisionError) Error() string {
	what := "base branch"
	if e.Commit {
		what = "commit"
	}
	return fmt.Sprintf("%s %q %s", what, e.Value, e.Problem)
}

// IsUsageError reports whether err (of a run, Detect or a load of the
// configuration) is the user's to fix before anything can run: a revision
// that names nothing (*RevisionError), a configured base branch that does
// not exist, or a repository git refuses (no repository, "dubious
// ownership"). The CLI exits 2 for it, after one line.
func IsUsageError(err error) bool {
	var re *RevisionError
	var be *git.BaseBranchError
	return errors.As(err, &re) || errors.As(err, &be) || errors.Is(err, git.ErrRepository)
}

// CheckRevisions checks the commit to look at and the base branch a run
// was given (-c and -b; "" when not given): each must name a commit of the
// repository at root. A repository git refuses is returned as it is.
func CheckRevisions(ctx context.Context, root, commit, base string) error {
	if commit != "" {
		if strings.HasPrefix(commit, "-") {
			return &RevisionError{Commit: true, Value: commit, Problem: "is not a commit: it must not start with '-'"}
		}
		sha, err := git.ResolveCommit(ctx, root, commit)
		if err != nil {
			return err
		}
		if sha == "" {
			return &RevisionError{Commit: true, Value: commit, Problem: "names no commit in this repository"}
		}
	}
	if base != "" {
		if strings.HasPrefix(base, "-") {
			return &RevisionError{Value: base, Problem: "is not a branch: it must not start with '-'"}
		}
		_, err := git.ResolveBase(ctx, root, base)
		var be *git.BaseBranchError
		if errors.As(err, &be) {
			return &RevisionError{Value: base, Problem: "names no branch or commit in this repository"}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
