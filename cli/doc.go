// Package cli is the agent-gauntlet command line: one Kong struct per
// command, each in its own file, wiring the statecfg, runner and hookproto
// modules together. Main is the whole program; cmd/agent-gauntlet only calls it.
package cli
