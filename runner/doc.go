// Package runner runs the gauntlet: it detects what changed, maps changed
// paths to entry points, runs their check and review gates, writes the
// numbered logs and the execution state, and reports one GauntletStatus.
//
// ExecuteRun is the whole run in-process; the CLI and the stop hook both call
// it, and it never exits the process. Its sequence is execute (execute.go),
// calling one step per file: setup (the project, the debug log, git),
// autoClean (the policy of archiving before a run), detect (the changes,
// changes.go), runGates (gates.go), finish (the status, the state, the
// summary) and archiveAfterPass (archive.go). LoadProject is the one way a
// project is loaded, Clean the one way logs are archived (clean.go), and
// messages.go the one table of what each status says.
package runner
