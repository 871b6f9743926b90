// Package run is the engine of a gauntlet run: Execute, which the runner
// package's ExecuteRun calls.
//
// A run is a sequence of stages (run.go, runner.stages), each a function
// from the values the stages before it made to a value of its own:
//
//	open     (open.go)     the project, read-only from then on: its
//	                       configuration, effective settings, debug log
//	begin    (begin.go)    the lock, the previous state, auto-clean
//	                       (autoclean.go), the episode (episode.go)
//	detect   (detect.go)   the changes, and those since the last run
//	plan     (plan.go)     the jobs
//	prepare  (prepare.go)  the console log, previous failures, skips,
//	                       cache keys, the gates' change scope
//	runGates (gates.go)    cached passes, then the scheduler, each gate
//	                       kind run by its row of kinds.go
//	finish   (finish.go)   the status (decide.go), the execution state
//	                       (state.go), the summary, archiving (archive.go)
//
// A stage returns its value and an error; an error ends the run, and
// ended (ended.go) is the one place it becomes a status. The services
// every stage may use (the console, the clock, the effects tests replace)
// are set once, before the first stage.
package run
