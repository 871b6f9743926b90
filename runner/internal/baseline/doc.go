// Package baseline tells a check's own failures from the ones its base
// commit already had: a failed check with baseline: true runs again on
// the base (in a temporary private checkout, or from the result cache), and its
// findings are compared by identity (runner/findings.Compare): the
// failure is pre-existing when every failing test and every finding is on
// the base too and nothing a failure kept from running is unverified
// (stopped runs run again without what stopped them).
//
// Where the base result comes from is a Source: Worktrees runs the check
// in a temporary private checkout of it, in a world of its own
// (private.go); Cached asks a Store first.
package baseline
