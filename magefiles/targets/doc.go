// Package targets holds the mage targets (install, test, lint, tidy, e2e,
// bench, demo, dist, npmpack, installtest, release) as ordinary, tested Go.
// The tagged magefile.go only imports it (mage:import): every exported
// function with a target's signature here is a target, and the first
// sentence of its doc comment is its help. The modules' release machinery
// is internal/release, the npm packaging internal/npmpkg.
package targets
