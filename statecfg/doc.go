// Package statecfg is the root of the statecfg module: configuration
// (project, global, environment overrides), execution state, the run lock and
// the log directory. It knows nothing of gates; the runner module builds on it.
//
// The work is done by its subpackages: config, state, lock, logdir and
// ledger (the result cache's store), with glob (entry point patterns),
// atomicfile (atomic writes), fsread (reads that never block on a FIFO) and
// fserr (paths named once in messages).
package statecfg
