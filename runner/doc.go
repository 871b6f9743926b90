// Package runner runs the gauntlet: it detects what changed, maps changed
// paths to entry points, runs their check and review gates, writes the
// numbered logs and the execution state, and reports one GauntletStatus.
//
// ExecuteRun is the whole run in-process; the CLI and the stop hook both call
// it, and it never exits the process.
package runner
