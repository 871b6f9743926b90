// Package statecfg is the root of the statecfg module: configuration
// (project, global, environment overrides), execution state, the run lock and
// the log directory. It knows nothing of gates; the runner module builds on it.
//
// The work is done by its subpackages: config, state, lock, logdir and
// ledger (the result cache's store), trust (the trusted configuration) and
// verdicts (the gauntlet's own record of its verdicts), kept under the git
// common directory at the place package names, with glob (entry point
// patterns), atomicfile (atomic writes), fsread (reads that never block on
// a FIFO), gitdir (git's directories found without git) and fserr (paths
// named once in messages).
package statecfg
