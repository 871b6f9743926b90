// Package statecfg is the root of the statecfg module: configuration
// (project, global, environment overrides) and state (the execution state,
// the run lock, the log directory, the records kept under the git common
// directory). It knows nothing of gates; the runner module builds on it.
//
// Configuration and state: config, state, lock, logdir, ledger (records by
// content: the result cache), store (records by name: the agent's skip
// decisions), trust (the trusted configuration), verdicts (the gauntlet's
// own record of its verdicts), place (where a project's records live under
// the git common directory), gitdir (git's directories found without git)
// and builtin (the built-in review prompts); testenv makes a hermetic
// environment for tests.
//
// The small tools every module shares, which are neither, are grouped
// under kit/ (see kit/doc.go): atomicfile, fsread, fserr, jsonobj, glob,
// procgroup and gitcmd.
package statecfg
