// Package targets holds the mage targets (install, test, lint, e2e, bench,
// demo) as ordinary, tested Go. The tagged magefile.go only imports it
// (mage:import): every exported function with a target's signature here is
// a target, and the first sentence of its doc comment is its help.
package targets
