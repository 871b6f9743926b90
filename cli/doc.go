// Package cli is the agent-gauntlet command line: one Kong struct per
// command, each in its own file, wiring the statecfg, runner and hookproto
// modules together. Main is the whole program and RunProcess the program as a
// process (its signal handling); cmd/agent-gauntlet only calls RunProcess.
//
// Users install the command with
//
//	go install github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet@latest
//
// which works because this module requires its siblings (hookproto,
// statecfg, runner) at the release version, tagged in step, and has no
// replace directives; in development go.work joins the working trees
// (RELEASING.md at the repository root).
package cli
