// Package findings reads what a check's tools report: diagnostics (a
// file, line and column, a severity, a rule and the whole message) and
// test results (a test known by its suite and name, its status, its
// failure message and location), from the output the check printed or
// the JUnit XML files it wrote. A check names its format in its
// configuration, or the format is recognised from its command; output no
// parser understands is read as text, one finding per error line.
//
// Compare judges a check's findings against those of the same check on
// the base commit: a failing test is new unless the same test fails on the
// base; a diagnostic is new when it sits on a line the change added or
// modified, or when the change raises how often the same diagnostic occurs
// in its file. Tests that a failure kept from running (a panic that ended
// a Go test binary, a tool that stops at its first failure) are listed as
// stops: Rerun builds the command that runs them again without the known
// failures, and until that is done the failure cannot be judged
// pre-existing.
package findings
