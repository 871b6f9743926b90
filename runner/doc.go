// Package runner is the door of the runner module: the types of a run's
// outcome and one file per service the CLI calls. The engine and its parts
// live under internal/ (internal/run is the run itself).
//
// Types:
//
//	status.go        GauntletStatus, the one status of every outcome
//	result.go        RunResult, GateResult, SlotResult, Violation
//	errors.go        the usage errors of a run or Detect
//
// Services:
//
//	run.go           ExecuteRun (the engine, internal/run), LockMaxAge
//	detect.go        Detect, AllJobs: the changes and the jobs of a run
//	clean.go         Clean: archive the logs; RecordStopHook
//	projectstate.go  Status: where a project stands between runs
//	pending.go       Pending: what the gauntlet's own records leave to verify
//	start.go         MarkStart: the point init records to check work from
//	violations.go    ReviewViolations, Decide: the agent's side of reviews
//	health.go        Health: the review CLIs
//	trial.go         TryCheck: run a proposed check once (init)
//	headconfig.go    BrokenByChange: is a broken configuration the change's
//	cache.go         OpenResultCache: the result cache of a repository
//	reports.go       LogTail: the end of a log, for reports
package runner
