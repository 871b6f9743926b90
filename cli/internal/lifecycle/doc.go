// Package lifecycle holds the model-based lifecycle test of agent-gauntlet:
// rapid state machines that drive the real binary, built once per test
// process, in a real throwaway git repository through random sequences of
// what users and agents do (edits that make gates fail or pass, new files
// and directories, commits, branches, merges into the base branch and of
// it into the branch, with
// and without base-branch baselines, every run, check, review and detect
// flag, stop hooks with and without the loop flag, with new sessions and
// from other directories, review violations marked fixed or skipped for a
// stand-in reviewer, clean, signals in the middle of a gate, stray locks);
// what the gated agent can do with its shell (forge or delete the files of
// the log directory, weaken or delete the configuration, set index flags
// and attributes, move the base branch); what a person does (trust a
// configuration, switch the hook off globally); and the odd shapes and
// faults of the world (nested repositories, a repository with no commit,
// glob and long entry points, checks with structured output, a reviewer
// that is down or spells paths its own way). gen_test.go lists the steps.
//
// After every step a simple oracle, which knows from the files' content which
// gates fail in the work tree now and which configuration is in force,
// checks the lifecycle properties of docs/design.md (the target semantics,
// not the current behaviour):
//
//	(a) no file the gauntlet did not write is moved, changed or deleted, nor
//	    the user's git index and its flags, HEAD, branches or stash;
//	(b) no approve (and no passing run) while an applicable gate of the
//	    configuration in force fails, outside a legitimate condition (the
//	    retry budget of this episode really spent, a live lock, the
//	    interval after a full passing run with no failure since, one
//	    loop-guard approve per block, the hook switched off by the global
//	    or the trusted configuration, the reviewer down), and even then
//	    only when the approve's systemMessage says what was not verified;
//	    the same message for a gate that fails without surely being in the
//	    changes (pending from an earlier run, committed onto the base
//	    branch, under a base the agent moved); and the stop hook saying
//	    when the work tree's configuration is not the one in force;
//	(c) no block (and no failed run) without a gate that can fail in the work
//	    tree (judged, with a baseline, against where the work starts: the
//	    base the episode began on, or, for a base moved onto the work
//	    before any run, the start point of a person's trust record), never
//	    a block on the stop that follows a block (unless the configuration
//	    verifies it), never one for a reviewer that is down;
//	(d) no lock file left after a command exits (SIGKILL excepted: the next
//	    run takes the lock over), a respected lock left intact, no gate
//	    process outliving a signalled run, and clean working exactly where
//	    the stop hook finds a project;
//	(e) .execution_state always parseable, the hook always one JSON line and
//	    exit 0, no Go panic in any output, the reviewer called with its exact
//	    flags and never shown a text file as binary.
//
// The oracle's own view is checked too: after every step, whether it holds
// a trusted record must agree with the record on disk (checkTrustModel); a
// divergence is a defect of the harness and ends the sequence.
//
// Minimal failing sequences are kept as readable step lists: in
// testdata/regress/ those agent-gauntlet passes (replayed on every run), in
// testdata/pending/ those it does not pass yet. `go tool mage soak` runs
// many more sequences and writes new minimal ones into testdata/pending/.
//
// The package has no code besides its tests.
package lifecycle
