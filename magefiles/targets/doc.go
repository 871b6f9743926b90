// Package targets holds the logic of the mage targets (install, test, lint,
// e2e, bench, demo) as ordinary, tested Go; magefile.go only calls it.
package targets
