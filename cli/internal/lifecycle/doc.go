// Package lifecycle holds the model-based lifecycle test of agent-gauntlet:
// rapid state machines that drive the real binary, built once per test
// process, in a real throwaway git repository through random sequences of
// what users and agents do (edits that make gates fail or pass, new files
// and directories, commits, branches, merges into the base branch, with
// and without base-branch baselines (a check failure that the merge base
// has too is pre-existing and must not block; a new one must), every
// run, check, review and detect flag, stop hooks with and without the loop
// flag and with new sessions, review violations marked fixed or skipped for a
// stand-in reviewer, clean, signals in the middle of a gate, stray locks).
//
// After every step a simple oracle, which knows from the files' content which
// gates fail in the work tree now, checks the lifecycle properties of
// docs/design.md (the target semantics, not the current behaviour):
//
//	(a) no file the gauntlet did not write is moved, changed or deleted, nor
//	    the user's git index, HEAD, branches or stash;
//	(b) no approve (and no passing run) while an applicable gate fails,
//	    outside a legitimate condition: the retry budget of this episode
//	    really spent, a live lock, the interval after a full passing run with
//	    no failure since, one loop-guard approve per block;
//	(c) no block (and no failed run) without a gate that can fail in the work
//	    tree, and never a block on the stop that follows a block;
//	(d) no lock file left after a command exits (SIGKILL excepted: the next
//	    run takes the lock over), a respected lock left intact, and no gate
//	    process outliving a signalled run;
//	(e) .execution_state always parseable, the hook always one JSON line and
//	    exit 0, no Go panic in any output, the reviewer called with its exact
//	    flags.
//
// Minimal failing sequences are kept as readable step lists in
// testdata/regress/ and replayed on every run. `go tool mage soak` runs many
// more sequences and writes new minimal ones there.
//
// The package has no code besides its tests.
package lifecycle
