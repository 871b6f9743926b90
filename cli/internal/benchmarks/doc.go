// Package benchmarks holds whole-process benchmarks of agent-gauntlet: the
// real binary is built once and run as a child, next to the baseline each
// figure is compared with (git itself, sh). `go tool mage bench` runs them
// and writes BENCHMARKS.md.
package benchmarks
