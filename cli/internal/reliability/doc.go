// Package reliability holds the reliability tests that a testscript cannot
// express: many real agent-gauntlet processes started at once in one
// repository, signals sent to a runner in the middle of a gate, the peak
// memory of a run whose check prints 100 MB, and a log directory the
// process may not write to.
//
// The tests build the agent-gauntlet binary once (without -race, whatever
// the test binary uses), then run it as a separate process in throwaway git
// repositories with a hermetic environment (HOME, git identity and
// configuration under the test's temporary directory). They assert on
// outcomes and on memory, never on wall time; every wait is bounded.
//
// The package has no code besides its tests.
package reliability
