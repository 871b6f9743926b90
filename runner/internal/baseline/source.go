package baseline

import (
	"context"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// Request asks how a check does on the base commit.
type Request struct {
	// Commit is the base commit: where the run's changes start (the merge
	// base with the base branch, HEAD for -u, the parent for -c).
	Commit string
	// Job is the check as the run ran it: its command, working directory
	// (relative to the project root), timeout, and Changed, the run's
	// changed files (relative to the project root). The base run gets the
	// same files, less those absent at the base.
	Job gate.Job
	// BaseBranch is what ${BASE_BRANCH} stands for.
	BaseBranch string
	// Log is the check's log, open for appending: a Source writes what it
	// did there, for people to read.
	Log *os.File
	// World fingerprints what the base run sees beyond the base commit's
	// tree (World): a Store keys a result by it too.
	World string
}

// Result is how the check did on the base.
type Result struct {
	// Passed is true when the check passed on the base (or had none of its
	// changed files there): the failure is then new.
	Passed bool
	// ExitCode is the base failure's exit code (when not Passed).
	ExitCode int
	// Findings are what the base failure reported (when not Passed).
	Findings findings.Result
	// Unverified says, one line each, why a dependency directory the base
	// run was given a copy of does not hold what its package manager
	// installed (changed since, by anyone: the agent too): a failure the
	// base shares is then no evidence that the change did not cause it.
	Unverified []string
	// Note says, in a few words, how the result was obtained ("run in a
	// temporary worktree", "from the result cache").
	Note string
}

// Source gives the result of a check on a base commit. Worktrees runs it;
// Cached asks a Store (the result cache, docs/cache.md) first, for an earlier
// result of the same check on the same base. An error means the base
// result cannot be had: the check then counts as failing, with the error
// as the reason.
type Source interface {
	Base(ctx context.Context, req Request) (Result, error)
}

// ClosingSource is a Source that holds resources until Close (a
// temporary worktree).
type ClosingSource interface {
	Source
	// Close releases what the source holds; it never fails the run.
	Close()
}
