// Package findings reads what a check's tools report: diagnostics (a
// file, line and column, a severity, a rule and the whole message) and
// test results (a test known by its suite and name, its status, its
// failure message and location), from the output the check printed or
// the JUnit XML files it wrote. A check names its format in its
// configuration, or the format is recognised from its command; in the
// output of any other command the formats are recognised by their lines
// (sniff.go), and what no parser reads is text, one finding per line.
//
// CompareWith judges a check's findings against those of the same check
// on the base commit, by identity, as multisets: a failing test by suite,
// name, file and how it failed; a diagnostic by file, rule, message and
// the line it flags (its place through the diff, or the line's text).
// Tests that a failure kept from running (a panic or an exit that ended a
// Go test binary, a crash, a tool that stops at its first failure, the
// later parts of a chain) are listed as stops: PlanRerun builds the
// command that runs them again without what stopped them, and until that
// is done the failure cannot be judged pre-existing. Result.Judge is the
// one account of what a judged result asks the agent to fix.
package findings
